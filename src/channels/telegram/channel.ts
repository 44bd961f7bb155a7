// The Telegram channel (Bot API through grammY): composition of the connection, the transport (long
// polling by default, or a webhook), the inbound pipeline and the sender. Tests point `apiRoot` at a
// fake Bot API server on 127.0.0.1; nothing else is faked.
import type { Paths } from '../../config/paths.js';
import type { Config } from '../../config/schema.js';
import type { Logger } from '../../log.js';
import { registerCredential } from '../../log.js';
import type { ChannelStateStore } from '../../store/channel-state.js';
import { type ConsumerPart, consumeWhileHeld, type SingleConsumer, withLiveHolder } from '../single.js';
import type { Channel, ChannelState, InboundHandler } from '../types.js';
import { type Timers, Typing } from '../typing.js';
import { type BotApi, fileUrl, makeApi } from './api.js';
import { deleteMessage, editText, react, sendCard } from './changes.js';
import { menuPlan } from './commands.js';
import { registerMenus } from './commands-register.js';
import { describeFailure, whoAmI } from './connect.js';
import { Inbound, TELEGRAM } from './inbound.js';
import type { Me } from './normalize.js';
import { abortableSleep, retryDelay } from './poll.js';
import { TELEGRAM_TEXT_LIMIT } from './render.js';
import { Sender } from './send.js';
import { compilePatterns, gateConfig, resolveToken } from './settings.js';
import { TelegramState } from './state.js';
import { openTransport, type Transport } from './transport.js';

export interface TelegramChannelDeps {
  config: Config;
  paths: Pick<Paths, 'inboundMedia'>;
  log: Logger;
  state: ChannelStateStore;
  env: NodeJS.ProcessEnv;
  transcribe?: (path: string) => Promise<string | undefined>;
  onState?: (state: ChannelState) => void;
  /** The long poll's lease (one getUpdates consumer per bot); absent: this process polls. */
  single?: SingleConsumer;
  // Seams for tests.
  typingTimers?: Timers;
  pollTimeoutSeconds?: number;
  sleep?: (ms: number) => Promise<void>;
  handlerRetryDelaysMs?: readonly number[];
}

export interface TelegramChannel extends Channel {
  /** The webhook server's port once listening (tests bind port 0). */
  webhookPort(): number | undefined;
}

export function createTelegramChannel(deps: TelegramChannelDeps): TelegramChannel {
  const { config } = deps;
  const tg = config.telegram;
  const log = deps.log.child({ channel: 'telegram' });
  const store = new TelegramState(deps.state);
  let state: ChannelState = tg.enabled ? { type: 'stopped' } : { type: 'disabled' };
  const setState = (s: ChannelState) => {
    state = s;
    deps.onState?.(s);
  };
  let api: BotApi | undefined;
  let me: Me | undefined;
  let transport: Transport | undefined;
  let abort = new AbortController();
  let connecting: Promise<void> | undefined;
  /** Long polling, run while this process holds the poll's lease (webhook mode: undefined). */
  let poll: ConsumerPart | undefined;
  let pollAbort = new AbortController();
  let polling: Promise<void> | undefined;
  let token = '';
  const maxInbound = Math.floor(config.media.maxInboundMb * 1048576);
  const sender = new Sender({
    api: () => (me ? api : undefined),
    state: store,
    log,
    maxFileBytes: Math.floor(config.media.maxOutboundMb * 1048576),
    ...(deps.sleep ? { sleep: deps.sleep } : {}),
  });
  const inbound = new Inbound({
    gate: gateConfig(tg, compilePatterns(tg.mentionPatterns), config.access),
    me: () => me,
    state: store,
    media: {
      getFile: (id) => api!.getFile(id),
      urlFor: (path) => fileUrl(token, tg.apiRoot, path),
      dir: deps.paths.inboundMedia,
      maxBytes: maxInbound,
    },
    ...(deps.transcribe ? { transcribe: deps.transcribe } : {}),
    ackTap: (id) => api!.answerCallbackQuery(id),
    notify: async (chatId, text) => {
      const r = await sender.send(chatId, { type: 'text', text });
      if (!r.ok) log.warn({ error: r.error }, 'telegram notice not sent');
    },
    log,
    ...(deps.sleep ? { sleep: deps.sleep } : {}),
    ...(deps.handlerRetryDelaysMs ? { handlerRetryDelaysMs: deps.handlerRetryDelaysMs } : {}),
  });
  const typing = new Typing(
    { show: (chatId) => api!.sendChatAction(chatId, 'typing') },
    tg.typingIntervalSeconds * 1000,
    deps.typingTimers,
    (err) => log.debug({ err: (err as Error).message }, 'telegram chat action failed'),
  );
  const transportDeps = () => ({
    api: api!,
    cfg: tg,
    token,
    state: store,
    handle: (u: Parameters<Inbound['handle']>[0]) => inbound.handle(u),
    onPollOk: () => {
      if (state.type !== 'connected' && me) setState(connected(me));
    },
    onPollError: (err: unknown, retries: number) => {
      const lastError = describeFailure(err);
      log.warn({ error: lastError, retries }, 'telegram poll failed');
      setState({ type: 'degraded', since: Date.now(), lastError, retries });
    },
    onRefused: (reason: string) => log.debug({ reason }, 'telegram webhook request refused'),
    onHandleError: (err: unknown) => log.error({ err: (err as Error).message }, 'telegram update failed'),
    ...(deps.pollTimeoutSeconds !== undefined && { pollTimeoutSeconds: deps.pollTimeoutSeconds }),
  });
  /** Another process polls: this one only sends, and says who polls. */
  const elsewhere = () => {
    if (me && !poll?.running())
      setState({
        type: 'elsewhere',
        since: Date.now(),
        holder: deps.single?.heldBy() ?? 'held by another process',
      });
  };
  /** Long polling, once connected, retried until it opens or this process no longer holds the poll. */
  const startPolling = async (signal: AbortSignal): Promise<void> => {
    await connecting;
    for (let tries = 1; !signal.aborted && me; tries++) {
      try {
        transport = await openTransport(transportDeps(), signal);
        if (signal.aborted) await transport.stop();
        else {
          setState(connected(me));
          log.info({ account: `@${me.username}`, mode: 'polling' }, 'telegram polling');
        }
        return;
      } catch (err) {
        if (signal.aborted) return;
        log.warn({ error: describeFailure(err), retries: tries }, 'telegram poll could not start');
        await abortableSleep(retryDelay(err, tries), signal);
      }
    }
  };
  /** getMe, the command menu and (webhook mode) the transport, retried until it works or the channel stops. */
  const connect = async (signal: AbortSignal): Promise<void> => {
    for (let tries = 1; !signal.aborted; tries++) {
      try {
        me = await whoAmI(api!, signal);
        await registerMenus(
          api!,
          menuPlan({
            prefix: config.commands.prefix,
            section: config.commands,
            dm: tg.dm,
            allowFrom: tg.allowFrom,
            access: config.access,
          }),
          log,
        );
        if (tg.webhook) transport = await openTransport(transportDeps(), signal);
        if (tg.webhook || !deps.single || poll?.running()) setState(connected(me));
        else elsewhere();
        log.info(
          { account: `@${me.username}`, mode: tg.webhook ? 'webhook' : 'polling' },
          'telegram connected',
        );
        return;
      } catch (err) {
        if (signal.aborted) return;
        const lastError = describeFailure(err);
        log.warn({ error: lastError, retries: tries }, 'telegram connect failed');
        setState({ type: 'connecting', since: Date.now(), lastError, retries: tries });
        await abortableSleep(retryDelay(err, tries), signal);
      }
    }
  };

  return {
    name: TELEGRAM,
    textLimit: TELEGRAM_TEXT_LIMIT,
    async start(onInbound: InboundHandler) {
      if (!tg.enabled || connecting) return;
      const t = resolveToken(tg, deps.env);
      if (!t.ok) {
        log.error({ state: 'degraded' }, `telegram not started: ${t.error}`);
        setState({ type: 'degraded', since: Date.now(), lastError: t.error, retries: 0 });
        return;
      }
      token = t.token;
      registerCredential(token);
      api = makeApi(token, tg.apiRoot);
      inbound.setHandler(onInbound);
      abort = new AbortController();
      setState({ type: 'connecting', since: Date.now() });
      connecting = connect(abort.signal);
      if (tg.webhook) return;
      const channelSignal = abort.signal;
      poll = consumeWhileHeld(
        deps.single,
        {
          start: async () => {
            pollAbort = new AbortController();
            const signal = AbortSignal.any([channelSignal, pollAbort.signal]);
            polling = startPolling(signal);
            await polling;
          },
          stop: async () => {
            await polling;
            await transport?.stop();
            transport = undefined;
            elsewhere();
          },
        },
        (err) => log.error({ err: (err as Error).message }, 'telegram poll handover failed'),
        () => pollAbort.abort(),
      );
    },
    async stop() {
      abort.abort();
      pollAbort.abort();
      await typing.clear();
      await connecting;
      await poll?.cancel();
      poll = undefined;
      await transport?.stop();
      transport = undefined;
      connecting = undefined;
      inbound.setHandler(undefined);
      me = undefined;
      if (tg.enabled) setState({ type: 'stopped' });
    },
    send: (chatId, item) => sender.send(chatId, item),
    edit: (chatId, id, text) => editText(me ? api : undefined, chatId, id, text),
    react: (chatId, id, emoji) => react(me ? api : undefined, chatId, id, emoji),
    delete: (chatId, id) => deleteMessage(me ? api : undefined, chatId, id),
    sendCard: (chatId, card) => sendCard(me ? api : undefined, chatId, card),
    async typing(chatId, on) {
      if (api && me) await typing.set(chatId, on);
    },
    status: () => withLiveHolder(state, deps.single),
    webhookPort: () => transport?.port,
  };
}

// A bot's @username is public (anyone finds it in Telegram's search), so status shows it unmasked. Only
// when it has a username's shape: whatever else a Bot API server answered stays masked like a number.
const PUBLIC_HANDLE = /^@[A-Za-z][A-Za-z0-9_]{3,63}$/;

const connected = (me: Me): ChannelState => {
  const account = `@${me.username}`;
  return { type: 'connected', since: Date.now(), account, accountPublic: PUBLIC_HANDLE.test(account) };
};
