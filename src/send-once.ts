// `agentwire send` when no relay runs. Twilio needs no connection: one REST call (text and https
// media only, since nothing would be left to serve a local file to Twilio). WhatsApp needs the linked
// device, so this holds the relay lock, connects like the relay does, delivers through the outbox,
// and stores (without running) anything that arrives meanwhile, for the relay's next start.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import type { ChannelState } from './channels/types.js';
import { linkState } from './channels/whatsapp/link-state.js';
import { socketHolder } from './channels/whatsapp/relay-lock.js';
import type { MakeSocket } from './channels/whatsapp/socket.js';
import type { Context } from './cli/context.js';
import { type ChannelName, chatKey } from './core/types.js';
import { createQueue } from './relay.js';
import { acquireLock, heldBy, LockError } from './store/home-lock.js';
import { openStore, storeConfigFor } from './store/open.js';

export interface SendRequest {
  channel: ChannelName;
  to: string;
  text: string;
  /** Absolute real paths of local files, or https URLs. */
  media: string[];
  connectTimeoutMs: number;
}

export type SendOutcome = { ok: true; detail: string } | { ok: false; error: string };

/** `makeSocket` is the far edge (Baileys); tests hand in a fake. */
export interface SendDeps {
  makeSocket?: MakeSocket;
}

export async function sendWithoutRelay(
  ctx: Context,
  req: SendRequest,
  deps: SendDeps = {},
): Promise<SendOutcome> {
  if (req.channel === 'twilio') return sendTwilio(ctx, req);
  if (req.channel === 'whatsapp') return sendWhatsApp(ctx, req, deps);
  // Other channels send through the running relay only (its outbox, its connection).
  return { ok: false, error: `no relay is running: start \`agentwire relay\` to send on ${req.channel}` };
}

async function sendTwilio(ctx: Context, req: SendRequest): Promise<SendOutcome> {
  const local = req.media.filter((m) => !/^https:\/\//i.test(m));
  if (local.length > 0) {
    return {
      ok: false,
      error:
        'Twilio fetches attachments from a URL, and only a running relay serves local files: ' +
        'start `agentwire relay`, or pass an https URL.',
    };
  }
  // Loaded only here, as in the relay: the channel's library is not paid for by the other paths.
  const { sendTwilioDirect } = await import('./channels/twilio/direct.js');
  const r = await sendTwilioDirect({
    config: ctx.config,
    log: ctx.log.child({ sub: 'twilio' }),
    env: ctx.env,
    to: req.to,
    text: req.text,
    mediaUrls: req.media,
  });
  if (r.ok) return { ok: true, detail: `sent as ${r.providerIds.length} message(s)` };
  return { ok: false, error: `Twilio refused the message: ${r.error}${r.code ? ` (code ${r.code})` : ''}` };
}

async function sendWhatsApp(ctx: Context, req: SendRequest, deps: SendDeps): Promise<SendOutcome> {
  const { paths, config, log } = ctx;
  if (!config.whatsapp.enabled) return { ok: false, error: 'WhatsApp is turned off (whatsapp.enabled).' };
  let lock: Awaited<ReturnType<typeof acquireLock>>;
  try {
    lock = await acquireLock(paths.lock, paths.home);
  } catch (err) {
    if (err instanceof LockError) return { ok: false, error: `Cannot send: ${err.message}.` };
    throw err;
  }
  if (!lock.ok) {
    return {
      ok: false,
      error: `A relay (${heldBy(lock)}) holds ${paths.lock} but did not answer on its socket.`,
    };
  }
  const store = await openStore(storeConfigFor(paths, config.store));
  try {
    if ((await linkState(store.whatsapp.auth)) !== 'linked')
      return { ok: false, error: 'WhatsApp is not linked: run `agentwire login` first.' };
    // A relay elsewhere on the database holds the socket: a second one here would kick it off. The
    // message goes to the store's outbox instead, and that relay, told, sends it.
    const held = await socketHolder(store.status);
    if (held) {
      const local = req.media.filter((m) => !/^https:\/\//i.test(m));
      if (local.length > 0 && held.process?.host !== hostname())
        return {
          ok: false,
          error: `WhatsApp's socket is ${held.text}, another machine, which cannot read ${local[0]}: send it there, or pass an https URL.`,
        };
      const key = randomUUID();
      const chat = chatKey('whatsapp', req.to);
      const queue = createQueue(ctx, store, new Map(), { hold: true });
      try {
        await queue.deliver(chat, `send:${key}`, req.text, req.media, { ownerFiles: true });
      } finally {
        await queue.shutdown(0);
      }
      const rows = await store.repliesFor(`sys:send:${key}`);
      if (rows.length === 0) return { ok: false, error: 'Nothing to send.' };
      await store.ownership.notify('outbox', chat, `send:${process.pid}`, Date.now());
      return {
        ok: true,
        detail: `queued as ${rows.length} message(s) for the relay whose WhatsApp socket is ${held.text}; it sends them`,
      };
    }
    let state: ChannelState = { type: 'stopped' };
    let changed: () => void = () => {};
    const { createWhatsAppChannel } = await import('./channels/whatsapp/index.js');
    const channel = createWhatsAppChannel({
      config,
      paths,
      store: store.whatsapp,
      log: log.child({ sub: 'whatsapp' }),
      makeSocket: deps.makeSocket,
      onState: (s) => {
        state = s;
        changed();
      },
    });
    const queue = createQueue(ctx, store, new Map([['whatsapp', channel]]), { hold: true });
    await channel.start(queue.handleInbound);
    try {
      const connected = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), req.connectTimeoutMs);
        changed = () => {
          if (state.type === 'connected') resolve(true);
          if (state.type === 'relink_required') resolve(false);
          if (state.type === 'connected' || state.type === 'relink_required') clearTimeout(timer);
        };
        changed();
      });
      if (!connected) {
        // Assigned in the callback: TypeScript cannot see that it changed.
        const last = state as ChannelState;
        const why =
          last.type === 'degraded'
            ? `: ${last.lastError}`
            : last.type === 'relink_required'
              ? `: ${last.reason}`
              : '';
        return { ok: false, error: `Could not connect to WhatsApp${why}.` };
      }
      const key = randomUUID();
      await queue.deliver(chatKey('whatsapp', req.to), `send:${key}`, req.text, req.media, {
        ownerFiles: true,
      });
      // A connection lost mid-send keeps the outbox waiting: give it the same time as connecting.
      await Promise.race([queue.whenIdle(), delay(req.connectTimeoutMs)]);
      const rows = await store.repliesFor(`sys:send:${key}`);
      if (rows.length === 0) return { ok: false, error: 'Nothing to send.' };
      const failed = rows.filter((r) => r.status === 'failed');
      if (failed.length > 0) return { ok: false, error: `Not sent: ${failed[0]?.error ?? 'refused'}.` };
      const waiting = rows.filter((r) => r.status === 'pending').length;
      if (waiting > 0) {
        return {
          ok: false,
          error: `${waiting} of ${rows.length} part(s) not sent yet; the relay sends them when it starts.`,
        };
      }
      return { ok: true, detail: `sent as ${rows.length} message(s)` };
    } finally {
      await queue.shutdown(0);
      await channel.stop();
    }
  } finally {
    await store.close();
    await lock.release();
  }
}
