// `agentwire relay`: the long-running process. Runs until SIGINT/SIGTERM, then stops taking work,
// gives running agents queue.shutdownGraceSeconds to finish, kills the rest by process group and
// leaves everything unfinished in the store for the next start. A second signal skips the grace.
import type { Command } from 'commander';
import { startRelay, stopOnSignals } from '../relay.js';
import { type GlobalOptions, loadContext } from './context.js';
import { holdSignals } from './signals.js';

export function register(program: Command): void {
  program
    .command('relay')
    .description('run the relay: every enabled channel over one store and one queue')
    .action(async () => {
      const ctx = loadContext(program.opts<GlobalOptions>(), process.env, { logFile: 'relay' });
      // A signal during start-up (a slow store, recovery already sending replies) is held until the
      // relay is up, then stops it like any other: without this, Node's default ends the process
      // mid-write with the signal instead of a clean stop.
      const signals = holdSignals();
      let relay: Awaited<ReturnType<typeof startRelay>>;
      try {
        relay = await startRelay(ctx);
      } catch (err) {
        signals.close();
        throw err;
      }
      const report = await stopOnSignals(
        relay,
        ctx.config.queue.shutdownGraceSeconds * 1000,
        ctx.log,
        signals,
      );
      // The store is closed and the lock released; what a late channel's library still holds open
      // (a socket, a timer) would keep the process alive, so it ends here.
      if (report.lateChannels.length > 0) process.exit(0);
    });
}
