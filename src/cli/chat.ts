// `agentwire chat`: the console channel. Each stdin line is a message from the chat
// `console:local`, through the same inbox, run slots and outbox as WhatsApp and Twilio. Ctrl-C stops
// the current run (or, when nothing runs, exits); Ctrl-D / EOF exits once in-flight work is
// answered and stored. It does not take the relay lock: it owns no relay channel, and a running
// relay never touches console chats. Several may run at once on one state folder: they share the
// console chat, which one of them at a time runs and answers, under the chat's lease
// (store/ownership.ts); the console chat's tasks fire in the one that leads `scheduler:console`.
//
// The agent's tools (docs/tools.md) reach this process, not the relay: it answers them on a control
// socket of its own, and fires the tasks agents scheduled in the console chat while it runs.
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import { CONSOLE_CHAT_ID, ConsoleChannel } from '../channels/console/console.js';
import { MethodRegistry } from '../control/methods.js';
import { startControlServer } from '../control/server.js';
import { chatKey, parseChatKey } from '../core/types.js';
import { systemClock } from '../heartbeat/clock.js';
import { createRunCheck } from '../heartbeat/run-check.js';
import { createScheduler } from '../heartbeat/scheduler.js';
import { createQueue, createTools, registerToolsMethod, relayLauncher } from '../relay.js';
import { openStore, storeConfigFor } from '../store/open.js';
import { type GlobalOptions, loadContext } from './context.js';
import { sharedTasksChanged, startOwner } from './ownership.js';

export function register(program: Command): void {
  program
    .command('chat')
    .description('talk to the agent from this terminal (one message per line; Ctrl-D to quit)')
    .action(async () => {
      // Logs share the terminal with the conversation: there only warnings unless a level was asked
      // for; the log file (`agentwire logs`) gets every line at the configured level.
      const ctx = loadContext(program.opts<GlobalOptions>(), process.env, { logFile: 'conversation' });
      // Before the store opens, while this process is small (as the relay does).
      const launcher = ctx.config.agents.launcher ? relayLauncher(ctx.log) : undefined;
      const store = await openStore(storeConfigFor(ctx.paths, ctx.config.store));
      const owner = await startOwner(ctx, store, 'chat');
      const chat = chatKey('console', CONSOLE_CHAT_ID);
      let ending = false;
      let endWith: () => void = () => undefined;
      const ended = new Promise<void>((resolve) => {
        endWith = resolve;
      });
      const interrupt = () => {
        if (queue.stopChat(chat)) process.stderr.write('(stopped)\n');
        else if (!ending) {
          ending = true;
          endWith();
        }
      };
      const channel = new ConsoleChannel({
        input: process.stdin,
        output: process.stdout,
        errors: process.stderr,
        onEnd: () => {
          ending = true;
          endWith();
        },
        onInterrupt: interrupt,
      });
      const channels = new Map([['console' as const, channel]]);
      // Per process: several `agentwire chat` may run beside a relay, each answering its own runs.
      const socket = join(dirname(ctx.paths.socket), `chat-${process.pid}.sock`);
      const tools = createTools(ctx, store, channels, socket, undefined, undefined, owner, launcher);
      const queue = createQueue(ctx, store, channels, { tools, owner, ...(launcher && { launcher }) });
      const control = new MethodRegistry();
      registerToolsMethod(control, tools);
      const server = await startControlServer(socket, control, ctx.log.child({ sub: 'control' }));
      const scheduler = createScheduler({
        runner: queue,
        clock: systemClock,
        stored: await store.jobStates.loadAll(),
        states: store.jobStates,
        log: ctx.log.child({ sub: 'tasks' }),
        // A chat's tasks carry no pre-check today (only the config's heartbeat and schedules do, and
        // those are the relay's); should one, it starts from the launcher as the relay's do.
        runCheck: createRunCheck({
          env: {},
          cwd: ctx.paths.workspace,
          ...(launcher && { launcher }),
        }),
        // Only the console chat's tasks: the config's heartbeat and schedules are the relay's.
        config: { heartbeat: { everyMinutes: 0 }, schedules: [] },
        defaultTarget: () => undefined,
        tasks: { ...store.tasks, serves: (c) => parseChatKey(c)?.channel === 'console' },
      });
      sharedTasksChanged(owner, tools)(() => void scheduler.syncTasks());
      process.on('SIGINT', interrupt);
      process.on(
        'SIGTERM',
        () =>
          void queue
            .shutdown(0)
            .then(() => launcher?.stop())
            .then(() => owner.stop())
            .finally(() => process.exit(143)),
      );
      await queue.start();
      // One process fires the console chat's tasks, whichever `agentwire chat` runs beside it.
      owner.lead('scheduler:console', { gained: () => scheduler.start(), lost: () => scheduler.stop() });
      void owner.tick();
      if (process.stdin.isTTY)
        process.stderr.write('agentwire chat: one message per line; /help for commands; Ctrl-D to quit.\n');
      await channel.start(queue.handleInbound);
      queue.deliverer.wake();
      await ended;
      scheduler.stop();
      await queue.whenIdle();
      await queue.shutdown(ctx.config.queue.shutdownGraceSeconds * 1000);
      await scheduler.whenIdle();
      await server.close();
      await tools.close();
      await launcher?.stop();
      await channel.stop();
      await owner.stop();
      await store.close();
      process.stdin.destroy();
    });
}
