// The WhatsApp Web channel (Baileys): composition of the connection supervisor, the inbound pipeline
// and outbound sending. Tests inject `makeSocket` (a fake socket) and timers; nothing else is faked.
import type { WAMessageKey } from '@whiskeysockets/baileys';
import type { Paths } from '../../config/paths.js';
import type { Config } from '../../config/schema.js';
import { directAllowList } from '../../core/roles.js';
import type { Logger } from '../../log.js';
import { inboundDirOf } from '../../media/inbound.js';
import type { Launcher } from '../../runner/launcher/client.js';
import type { Fence } from '../../store/ownership.js';
import type { WhatsAppStore } from '../../store/store.js';
import { type ConsumerPart, consumeWhileHeld, type SingleConsumer, withLiveHolder } from '../single.js';
import type { Channel, ChannelState, InboundHandler } from '../types.js';
import { type Timers, Typing } from '../typing.js';
import { loadAuth } from './auth-store.js';
import { createChatJids } from './chat-jids.js';
import type { BackoffSettings } from './close-policy.js';
import { Connection, realScheduler, type Scheduler } from './connection.js';
import { compilePatterns } from './gate.js';
import { GroupCache } from './group-cache.js';
import { GroupContext } from './group-context.js';
import { Inbound } from './inbound.js';
import type { Linkable, LinkStart } from './link-control.js';
import { DEFAULT_LIVENESS, Liveness, type LivenessSettings } from './liveness.js';
import { type DownloadNet, downloadMedia } from './media-download.js';
import { Outbound } from './outbound.js';
import { Pacer } from './pacer.js';
import { probeOwnDevice } from './probe.js';
import { createSentStore } from './sent-store.js';
import { defaultMakeSocket, type MakeSocket, memoryCache, type WaSocket } from './socket.js';
import { makeTranscriber } from './transcribe.js';

// What the relay's composition root needs besides the factory.
export { type LinkState, linkedAccount, linkState } from './auth-store.js';
export { renderTerminalQr, runLogin, runLogout } from './login.js';
export { runningRelay } from './relay-lock.js';

export interface WhatsAppChannelDeps {
  config: Config;
  paths: Pick<Paths, 'inboundMedia'>;
  /** The channel's state in the store: credentials and keys, sent ids, chat JIDs. */
  store: WhatsAppStore;
  log: Logger;
  makeSocket?: MakeSocket;
  /** Called on every status change (e.g. to render a QR in the terminal, or for `status`). */
  onState?: (state: ChannelState) => void;
  transcribe?: (path: string) => Promise<string | undefined>;
  /** The relay's launcher (`agents.launcher`): the voice-note transcriber starts from it. */
  launcher?: Launcher;
  // Seams for tests (defaults are the real clock, timers and network).
  scheduler?: Scheduler;
  typingTimers?: Timers;
  random?: () => number;
  now?: () => number;
  backoff?: BackoffSettings;
  /** Watchdog timings other than the configured quiet period (tests). */
  liveness?: Partial<Omit<LivenessSettings, 'quietMs'>>;
  /** DNS answers and connections for inbound media downloads (tests stand in for WhatsApp's CDN). */
  mediaNet?: DownloadNet;
  sleep?: (ms: number) => Promise<void>;
  handlerRetryDelaysMs?: readonly number[];
  /**
   * The socket's lease: two sockets on one link kick each other off (close 440), so one process at
   * a time holds it; its credential and key writes carry the lease's fence. Absent: this process.
   */
  single?: SingleConsumer;
}

export interface WhatsAppChannel extends Channel, Linkable {
  /** Resolves once every message received so far has been handled (tests, orderly shutdown). */
  idle(): Promise<void>;
}

export function createWhatsAppChannel(deps: WhatsAppChannelDeps): WhatsAppChannel {
  const { config, store } = deps;
  const wa = config.whatsapp;
  const log = deps.log.child({ channel: 'whatsapp' });
  const now = deps.now ?? Date.now;
  const sent = createSentStore(store.sent, { now });
  const chats = createChatJids(store.chats, now);
  const groups = new GroupCache(5 * 60_000, now);
  const patterns = compilePatterns(wa.mentionPatterns);
  if (!patterns.ok) throw new Error(patterns.error);
  let connection: Connection | undefined;
  let state: ChannelState = wa.enabled ? { type: 'stopped' } : { type: 'disabled' };
  const setState = (s: ChannelState) => {
    state = s;
    deps.onState?.(s);
  };
  const socket = (): WaSocket | undefined => connection?.socket;
  // The connection's own state, before the watchdog's verdict is laid over it.
  let linkState: ChannelState = state;
  const liveness = new Liveness({
    settings: { ...DEFAULT_LIVENESS, ...deps.liveness, quietMs: wa.liveness.quietMinutes * 60_000 },
    scheduler: deps.scheduler ?? realScheduler,
    now,
    probe: async () => {
      const sock = socket();
      return sock ? probeOwnDevice(sock) : { ok: false, error: 'no open socket' };
    },
    reconnect: (reason) => connection?.reconnect(reason),
    onChange: () => setState(withLiveness(linkState, liveness)),
    log,
  });
  const onLinkState = (s: ChannelState) => {
    linkState = s;
    if (s.type === 'connected') liveness.linkUp();
    else liveness.linkDown();
    setState(withLiveness(s, liveness));
  };
  const outbound = new Outbound({
    socket,
    sent,
    chats,
    groups,
    log,
    chunkChars: wa.chunkChars,
    maxFileBytes: Math.floor(config.media.maxOutboundMb * 1048576),
    pacer: new Pacer({
      now,
      ...(deps.sleep ? { sleep: deps.sleep } : {}),
      ...(deps.random ? { random: deps.random } : {}),
    }),
  });
  const maxInbound = Math.floor(config.media.maxInboundMb * 1048576);
  const transcribe =
    deps.transcribe ??
    makeTranscriber(config.media.transcribe, log, { ...(deps.launcher && { launcher: deps.launcher }) });
  const inbound = new Inbound({
    gate: {
      ...withAllowFrom(directAllowList(wa.dm, wa.allowFrom, config.access, 'whatsapp')),
      ...(wa.groupAllowFrom !== undefined ? { groupAllowFrom: wa.groupAllowFrom } : {}),
      groups: wa.groups,
      groupAlways: wa.groupAlways,
      mentionPatterns: patterns.value,
    },
    readReceipts: wa.readReceipts,
    offlineWindowMs: wa.offlineWindowSeconds * 1000,
    outageStart: () => liveness.outageStart(),
    sent,
    chats,
    context: new GroupContext(wa.groupContextMessages),
    media: {
      maxBytes: maxInbound,
      download: (ref, chatId) =>
        downloadMedia(ref, {
          dir: inboundDirOf(deps.paths.inboundMedia, 'whatsapp', chatId),
          maxBytes: maxInbound,
          ...(deps.mediaNet ? { net: deps.mediaNet } : {}),
        }),
    },
    ...(transcribe ? { transcribe } : {}),
    notify: async (jid, text) => {
      const r = await outbound.send(jid, { type: 'text', text });
      if (!r.ok) log.warn({ error: r.error }, 'notice not sent');
    },
    socket,
    log,
    now,
    ...(deps.sleep ? { sleep: deps.sleep } : {}),
    ...(deps.handlerRetryDelaysMs ? { handlerRetryDelaysMs: deps.handlerRetryDelaysMs } : {}),
  });
  const typing = new Typing(
    {
      show: async (jid) => socket()?.sendPresenceUpdate('composing', jid),
      stop: async (jid) => socket()?.sendPresenceUpdate('paused', jid),
    },
    wa.typingIntervalSeconds * 1000,
    deps.typingTimers,
    (err) => log.debug({ err: (err as Error).message }, 'presence update failed'),
  );
  const retryCounters = memoryCache();
  let handler: InboundHandler | undefined;

  /** The socket's lease while this process holds it, and the part run under it. */
  let fence: Fence | undefined;
  let held: ConsumerPart | undefined;
  const begin = async (onInbound: InboundHandler): Promise<void> => {
    const loaded = await loadAuth(store.auth, log.child({ mod: 'baileys-keys' }, { level: 'warn' }), fence);
    if (!loaded.ok || loaded.link === 'logged_out') {
      const reason = loaded.ok
        ? 'WhatsApp logged this device out. Run `agentwire login` to link again.'
        : loaded.error;
      // Not connecting at all: say why where the operator looks (the log), not only in `status`.
      log.error({ state: 'relink_required' }, `whatsapp not started: ${reason}`);
      setState({ type: 'relink_required', since: now(), reason });
      return;
    }
    inbound.setHandler(onInbound);
    connection = new Connection({
      makeSocket: deps.makeSocket ?? defaultMakeSocket,
      auth: loaded.auth,
      log,
      hooks: {
        getMessage: async (key: WAMessageKey) => (key.id ? sent.getMessage(key.id) : undefined),
        cachedGroupMetadata: async (jid: string) => groups.get(jid),
        msgRetryCounterCache: retryCounters,
      },
      listeners: (sock) => [
        {
          event: 'messages.upsert',
          fn: (u) => {
            if (pushedByServer(u)) liveness.heard();
            inbound.onUpsert(sock, u);
          },
        },
        // Receipts and status changes of what we sent are pushed by WhatsApp too: proof of life.
        { event: 'messages.update', fn: () => liveness.heard() },
        { event: 'message-receipt.update', fn: () => liveness.heard() },
        {
          event: 'groups.upsert',
          fn: (list) => {
            for (const g of list) groups.set(g);
          },
        },
        {
          event: 'groups.update',
          fn: (list) => {
            for (const g of list) groups.update(g);
          },
        },
        { event: 'group-participants.update', fn: (u) => groups.invalidate(u.id) },
      ],
      onState: onLinkState,
      ...(deps.scheduler ? { scheduler: deps.scheduler } : {}),
      ...(deps.random ? { random: deps.random } : {}),
      ...(deps.backoff ? { backoff: deps.backoff } : {}),
      now,
    });
    connection.start();
  };

  return {
    name: 'whatsapp',
    textLimit: wa.chunkChars,
    async start(onInbound: InboundHandler) {
      if (!wa.enabled || connection || held) return;
      handler = onInbound;
      if (deps.single) setState({ type: 'elsewhere', since: now(), holder: 'waiting for the socket lease' });
      held = consumeWhileHeld(
        deps.single,
        {
          start: async (f) => {
            fence = f;
            if (handler) await begin(handler);
          },
          stop: async () => {
            // Another process took the socket over (this one was paused past its lease): close ours.
            liveness.stop();
            await connection?.stop();
            connection = undefined;
            fence = undefined;
            setState({
              type: 'elsewhere',
              since: now(),
              holder: deps.single?.heldBy() ?? 'held by another process',
            });
          },
        },
        (err) => log.error({ err: (err as Error).message }, 'whatsapp socket handover failed'),
      );
      if (!deps.single) await held.settled();
    },
    async link(): Promise<LinkStart> {
      if (!wa.enabled || !handler)
        return { type: 'unavailable', reason: 'WhatsApp is not running in this relay' };
      const s = state;
      if (s.type === 'elsewhere')
        return { type: 'unavailable', reason: `the WhatsApp socket is ${s.holder}: relink there` };
      if (s.type === 'connected') return { type: 'linked', ...(s.account && { account: s.account }) };
      if (s.type === 'connecting') return { type: 'linking' };
      if (s.type === 'degraded') return { type: 'unavailable', reason: s.lastError };
      // relink_required or stopped: the old link is dead, so its credentials go and a new QR comes.
      await connection?.stop();
      connection = undefined;
      const old = await loadAuth(store.auth);
      if (old.ok && old.link !== 'unlinked') await old.auth.clear();
      log.info('whatsapp relink requested: showing a new QR code');
      await begin(handler);
      return { type: 'linking' };
    },
    async stop() {
      liveness.stop();
      await typing.clear();
      await held?.cancel();
      held = undefined;
      await connection?.stop();
      connection = undefined;
      // Messages already received finish (they reach the store); no new ones arrive.
      await inbound.drain();
      inbound.setHandler(undefined);
      handler = undefined;
      if (wa.enabled) setState({ type: 'stopped' });
    },
    send: (chatId, item) => outbound.send(chatId, item),
    edit: (chatId, id, text) => outbound.edit(chatId, id, text),
    delete: (chatId, id) => outbound.delete(chatId, id),
    react: (chatId, id, emoji) => outbound.react(chatId, id, emoji),
    async typing(chatId, on) {
      const jid = await chats.resolve(chatId);
      if (jid) await typing.set(jid, on);
    },
    status: () => withLiveHolder(state, deps.single),
    idle: () => inbound.drain(),
  };
}

/**
 * An upsert WhatsApp delivered, as opposed to the echo Baileys emits locally for our own sends (an
 * `append` of `fromMe` messages): only the former proves the link still delivers.
 */
function pushedByServer(u: { type: string; messages: { key?: { fromMe?: boolean | null } | null }[] }) {
  return u.type === 'notify' || u.messages.some((m) => !m.key?.fromMe);
}

/** The connection's state with the watchdog's verdict: a link that fails its probes is degraded. */
export function withLiveness(s: ChannelState, liveness: Liveness): ChannelState {
  const probe = liveness.lastProbe();
  const failing = liveness.failing();
  // While the forced reconnect runs the link is still the one that failed: degraded, not "connecting".
  const live = s.type === 'connected' || (s.type === 'connecting' && !s.qr);
  if (live && liveness.degraded() && failing) {
    return {
      type: 'degraded',
      since: failing.since,
      lastError: `WhatsApp looks connected but failed ${failing.count} liveness checks in a row (last: ${probe?.detail ?? 'unknown'}); reconnecting`,
      retries: failing.count,
      ...(probe && { probe }),
    };
  }
  if ((s.type === 'connected' || s.type === 'degraded') && probe) return { ...s, probe };
  return s;
}

/** The gate's `allowFrom` only when set: unset keeps WhatsApp's "only the linked number". */
function withAllowFrom(list: '*' | string[] | undefined): { allowFrom?: '*' | string[] } {
  return list === undefined ? {} : { allowFrom: list };
}
