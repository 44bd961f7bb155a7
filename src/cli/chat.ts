// `agentwire chat`: the console channel. Each stdin line is a message from the chat
// `console:local`, through the same inbox, lanes and outbox as WhatsApp and Twilio. Ctrl-C stops
// the current run (or, when nothing runs, exits); Ctrl-D / EOF exits once in-flight work is
// answered and stored. It does not take the relay lock: it owns no relay channel, and a running
// relay never touches console chats.
import type { Command } from 'commander';
import { CONSOLE_CHAT_ID, ConsoleChannel } from '../channels/console/console.js';
import { chatKey } from '../core/types.js';
import { createLogger } from '../log.js';
import { createQueue } from '../relay.js';
import { openStore } from '../store/open.js';
import { type GlobalOptions, loadContext } from './context.js';

export function register(program: Command): void {
  program
    .command('chat')
    .description('talk to the agent from this terminal (one message per line; Ctrl-D to quit)')
    .action(async () => {
      const loaded = loadContext(program.opts<GlobalOptions>());
      // Logs share the terminal with the conversation: only warnings unless a level was asked for.
      const level =
        process.env.AGENTWIRE_LOG_LEVEL ??
        (loaded.config.log.level === 'info' ? 'warn' : loaded.config.log.level);
      const ctx = { ...loaded, log: createLogger({ level }) };
      const store = await openStore(ctx.paths.db);
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
      const queue = createQueue(ctx, store, new Map([['console', channel]]));
      process.on('SIGINT', interrupt);
      process.on('SIGTERM', () => void queue.shutdown(0).then(() => process.exit(143)));
      await queue.start();
      if (process.stdin.isTTY)
        process.stderr.write('agentwire chat: one message per line; /help for commands; Ctrl-D to quit.\n');
      await channel.start(queue.handleInbound);
      queue.deliverer.wake();
      await ended;
      await queue.whenIdle();
      await queue.shutdown(ctx.config.queue.shutdownGraceSeconds * 1000);
      await channel.stop();
      await store.close();
      process.stdin.destroy();
    });
}
