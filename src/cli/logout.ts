// `agentwire logout [--yes]`: unlinks the device on WhatsApp and deletes its credentials.
import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { linkState } from '../channels/whatsapp/link-state.js';
import { runningRelay } from '../channels/whatsapp/relay-lock.js';
import { openStore, storeConfigFor } from '../store/open.js';
import { ExitError, type GlobalOptions, loadContext } from './context.js';
import { socketHolderOf } from './login.js';

async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

export function register(program: Command): void {
  program
    .command('logout')
    .description('unlink WhatsApp from this machine and delete its credentials')
    .option('-y, --yes', 'do not ask for confirmation')
    .action(async (opts: { yes?: boolean }) => {
      const ctx = loadContext(program.opts<GlobalOptions>());
      const holder = await runningRelay(ctx.paths);
      if (holder !== undefined) {
        throw new ExitError(1, `agentwire relay is running (${holder}). Stop it first, then log out.`);
      }
      const held = await socketHolderOf(ctx);
      if (held)
        throw new ExitError(1, `WhatsApp's socket is ${held.text}: stop that relay first, then log out.`);
      const store = await openStore(storeConfigFor(ctx.paths, ctx.config.store));
      try {
        if ((await linkState(store.whatsapp.auth)) === 'unlinked') {
          process.stdout.write('WhatsApp is not linked; nothing to do.\n');
          return;
        }
        if (!opts.yes) {
          if (!process.stdin.isTTY)
            throw new ExitError(1, 'Refusing to unlink without confirmation: pass --yes.');
          if (!(await confirm('Unlink WhatsApp from this machine and delete its credentials? [y/N] '))) {
            throw new ExitError(1, 'Cancelled.');
          }
        }
        // Baileys loads only for the command that connects (see src/channels/plugin.ts: `create` imports it).
        const { runLogout } = await import('../channels/whatsapp/login.js');
        const r = await runLogout({ store: store.whatsapp, log: ctx.log });
        if (!r.ok) throw new ExitError(1, r.error);
        process.stdout.write(
          r.unlinkedOnPhone
            ? 'Unlinked. The credentials were deleted.\n'
            : 'The credentials were deleted, but WhatsApp could not be reached to unlink the device: remove it on your phone under Settings → Linked devices.\n',
        );
      } finally {
        await store.close();
      }
    });
}
