// `agentwire trigger <chat> -m TEXT [--at TIME] [--quiet] [--session S] [--agent KIND]`: an event
// for scripts on this machine, through the running relay's control socket (method `trigger`), so
// it is stored and run by the relay like a file in the events folder. No relay, no event: the
// command says so and exits 1 rather than leave something that nothing runs.
import type { Command } from 'commander';
import { callControl } from '../control/client.js';
import { TRIGGER_METHOD, type TriggerResult } from '../events/trigger.js';
import { ExitError, type GlobalOptions, loadContext } from './context.js';

interface Options {
  message: string;
  at?: string;
  quiet?: boolean;
  session?: string;
  agent?: string;
  activeHours?: boolean;
}

export function register(program: Command): void {
  program
    .command('trigger')
    .description('wake the agent in a chat with an event, through the running relay')
    .argument('<chat>', 'a chat key (<channel>:<chat id>) or a name from targets')
    .requiredOption('-m, --message <text>', 'what the agent is told')
    .option('--at <time>', 'ISO time with an offset or Z, e.g. 2026-07-01T09:00:00+02:00; default now')
    .option('--quiet', 'the agent may answer HEARTBEAT_OK to send nothing')
    .option('--session <mode>', 'chat (default), own or fresh')
    .option('--agent <kind>', "another CLI than the chat's")
    .option('--active-hours', 'wait for heartbeat.activeHours')
    .action(async (chat: string, opts: Options) => {
      const ctx = loadContext(program.opts<GlobalOptions>(), process.env, { logFile: 'command' });
      const event = {
        chat,
        text: opts.message,
        ...(opts.at !== undefined && { at: opts.at }),
        ...(opts.quiet && { quiet: true }),
        ...(opts.session !== undefined && { session: opts.session }),
        ...(opts.agent !== undefined && { agent: opts.agent }),
        ...(opts.activeHours && { activeHours: true }),
      };
      const r = await callControl(ctx.paths.socket, TRIGGER_METHOD, { event }, { timeoutMs: 15_000 });
      if (!r.ok) {
        if (r.notRunning)
          throw new ExitError(
            1,
            `No relay is running (nothing listens on ${ctx.paths.socket}). Start it with \`agentwire relay\`.`,
          );
        throw new ExitError(1, `The relay could not take the event: ${r.error}`);
      }
      const out = r.result as TriggerResult;
      if (out.type === 'invalid') throw new ExitError(2, `Not an event: ${out.message}`);
      const when = out.dueAt > Date.now() + 1000 ? ` to run at ${new Date(out.dueAt).toISOString()}` : '';
      process.stdout.write(`Event ${out.event} stored${when}.\n`);
    });
}
