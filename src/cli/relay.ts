// `agentwire relay`: the long-running process. Runs until SIGINT/SIGTERM, then stops taking work,
// gives running agents queue.shutdownGraceSeconds to finish, kills the rest by process group and
// leaves everything unfinished in the store for the next start. A second signal skips the grace.
import type { Command } from 'commander';
import { startRelay } from '../relay.js';
import { type GlobalOptions, loadContext } from './context.js';

export function register(program: Command): void {
  program
    .command('relay')
    .description('run the relay: every enabled channel over one store and one queue')
    .action(async () => {
      const ctx = loadContext(program.opts<GlobalOptions>());
      const relay = await startRelay(ctx);
      const graceMs = ctx.config.queue.shutdownGraceSeconds * 1000;
      await new Promise<void>((resolve) => {
        let signals = 0;
        const onSignal = (sig: NodeJS.Signals) => {
          signals++;
          ctx.log.info({ signal: sig }, signals === 1 ? 'shutting down' : 'second signal: stopping now');
          void relay.stop(signals === 1 ? graceMs : 0).then(resolve);
          // A second signal aborts the runs still inside their grace period.
          if (signals > 1)
            for (const [chat] of relay.queue.lanes.runs()) relay.queue.lanes.abort(chat, 'shutdown');
        };
        process.on('SIGINT', onSignal);
        process.on('SIGTERM', onSignal);
      });
    });
}
