// `agentwire login [--pair +E164]`: links this machine as a WhatsApp linked device.
import type { Command } from 'commander';
import { runningRelay, socketHolder } from '../channels/whatsapp/relay-lock.js';
import { callControl } from '../control/client.js';
import { openStore, storeConfigFor } from '../store/open.js';
import { ExitError, type GlobalOptions, loadContext } from './context.js';
import { loginViaRelay } from './login-relay.js';

export function register(program: Command): void {
  program
    .command('login')
    .description('link WhatsApp: scan the QR code with your phone (or use --pair for a code)')
    .option(
      '--pair <phone>',
      'show a pairing code for this number (E.164, e.g. +15551234567) instead of a QR code',
    )
    .action(async (opts: { pair?: string }) => {
      if (opts.pair !== undefined && !/^\+[1-9]\d{6,14}$/.test(opts.pair)) {
        throw new ExitError(2, `--pair needs the phone number in E.164 form, like +15551234567`);
      }
      const ctx = loadContext(program.opts<GlobalOptions>());
      const local = await runningRelay(ctx.paths);
      const held = await socketHolderOf(ctx);
      // Held by a relay that is not this home's (another host on the database): it links there.
      if (held && !(local && held.process?.pid !== undefined && local === `pid ${held.process.pid}`))
        throw new ExitError(
          1,
          `WhatsApp's socket is ${held.text}: run \`agentwire login\` where that relay runs (or open its web console), or stop it first.`,
        );
      const holder = local;
      if (holder !== undefined) {
        // Two connections on one link keep kicking each other off: the running relay links instead.
        if (opts.pair)
          throw new ExitError(
            1,
            `agentwire relay is running (${holder}): run \`agentwire login\` without --pair to scan its QR code (or open the web console), or stop the relay to use a pairing code.`,
          );
        const r = await loginViaRelay({
          call: (method, params) => callControl(ctx.paths.socket, method, params),
          out: (s) => void process.stdout.write(s),
        });
        if (!r.ok)
          throw new ExitError(
            1,
            `agentwire relay is running (${holder}); linking through it failed: ${r.error}`,
          );
        process.stdout.write(
          r.alreadyLinked
            ? `Already linked as ${r.account ?? 'your number'}. Run \`agentwire logout\` first to link another phone.\n`
            : `Linked as ${r.account ?? 'your number'}. The running relay now answers on WhatsApp.\n`,
        );
        return;
      }
      const store = await openStore(storeConfigFor(ctx.paths, ctx.config.store));
      try {
        // Baileys loads only for the command that connects (see src/channels/plugin.ts: `create` imports it).
        const { runLogin } = await import('../channels/whatsapp/login.js');
        const r = await runLogin({
          store: store.whatsapp,
          log: ctx.log,
          out: (s) => void process.stdout.write(s),
          ...(opts.pair ? { pairPhone: opts.pair } : {}),
        });
        if (!r.ok) throw new ExitError(1, r.error);
        const who = r.account ?? 'your number';
        process.stdout.write(
          r.alreadyLinked
            ? `Already linked as ${who}. Run \`agentwire logout\` first to link another phone.\n`
            : `Linked as ${who}. Start the relay with \`agentwire relay\`, then message yourself on WhatsApp.\n`,
        );
      } finally {
        await store.close();
      }
    });
}

/** The socket's lease holder in the store this config names (a read, nothing created or migrated). */
export async function socketHolderOf(
  ctx: ReturnType<typeof loadContext>,
): Promise<Awaited<ReturnType<typeof socketHolder>>> {
  const store = await openStore(storeConfigFor(ctx.paths, ctx.config.store));
  try {
    return await socketHolder(store.status);
  } finally {
    await store.close();
  }
}
