// The Telegram channel (Bot API through grammY): composition of the connection, the transport (long
// polling by default, or a webhook), the inbound pipeline and the sender. Tests point `apiRoot` at a
// fake Bot API server on 127.0.0.1; nothing else is faked.
import type { Server } from 'node:http';
import type { Paths } from '../../config/paths.js';
import type { Config } from '../../config/schema.js';
import type { Logger } from '../../log.js';
import { registerCredential } from '../../log.js';
import type { ChannelStateStore } from '../../store/channel-state.js';
import type { Channel, ChannelState, InboundHandler } from '../types.js';
import { type BotApi, fileUrl, grammySignal, makeApi } from './api.js';
import { botCommands } from './commands.js';
import { describeFailure, whoAmI } from './connect.js';
import { Inbound, TELEGRAM } from './inbound.js';
import type { Me } from './normalize.js';
import { ALLOWED_UPDATES, Poller, retryDelay } from './poll.js';
import { TELEGRAM_TEXT_LIMIT } from './render.js';
import { Sender } from './send.js';
import { compilePatterns, gateConfig, resolveToken, webhookSecret } from './settings.js';
import { TelegramState } from './state.js';
import { type Timers, Typing } from './typing.js';
import { startWebhook } from './webhook.js';

export interface TelegramChannelDeps {
  config: Config;
  paths: Pick<Paths, 'inboundMedia'>;
  log: Logger;
  state: ChannelStateStore;
  env: NodeJS.ProcessEnv;
  transcribe?: (path: string) => Promise<string | undefined>;
  onState?: (state: ChannelState) => void;
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
  let poller: Poller | undefined;
  let server: Server | undefined;
  let port: number | undefined;
  let abort = new AbortController();
  let connecting: Promise<void> | undefined;
  let token = '';
  const maxInbound = Math.floor(config.media.maxInboundMb * 1048576);
  const sender = new Sender({
    api: () => (me ? api : undefined),
    state: store,
    log,
    maxFileBytes: Math.floor(config.media.maxOutboundMb * 1048576),
  });
  const inbound = new Inbound({
    gate: gateConfig(tg, compilePatterns(tg.mentionPatterns)),
    me: () => me,
    state: store,
    media: {
      getFile: (id) => api!.getFile(id),
      urlFor: (path) => fileUrl(token, tg.apiRoot, path),
      dir: deps.paths.inboundMedia,
      maxBytes: maxInbound,
    },
    ...(deps.transcribe ? { transcribe: deps.transcribe } : {}),
    notify: async (chatId, text) => {
      const r = await sender.send(chatId, { type: 'text', text });
      if (!r.ok) log.warn({ error: r.error }, 'telegram notice not sent');
    },
    log,
    ...(deps.sleep ? { sleep: deps.sleep } : {}),
    ...(deps.handlerRetryDelaysMs ? { handlerRetryDelaysMs: deps.handlerRetryDelaysMs } : {}),
  });
  const typing = new Typing(
    (chatId) => api!.sendChatAction(chatId, 'typing'),
    tg.typingIntervalSeconds * 1000,
    deps.typingTimers,
    (err) => log.debug({ err: (err as Error).message }, 'telegram chat action failed'),
  );
  const sleep = (ms: number, signal: AbortSignal) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms);
      signal.addEventListener('abort', () => {
        clearTimeout(t);
        resolve();
      });
    });

  /** getMe, the command menu and the transport, retried until it works or the channel stops. */
  const connect = async (signal: AbortSignal): Promise<void> => {
    for (let tries = 1; !signal.aborted; tries++) {
      try {
        me = await whoAmI(api!, signal);
        const commands = botCommands(config.commands.prefix);
        if (commands.length) {
          await api!
            .setMyCommands(commands)
            .catch((err: Error) => log.warn({ err: err.message }, 'setMyCommands failed'));
        }
        await openTransport(signal);
        setState({ type: 'connected', since: Date.now(), account: `@${me.username}` });
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
        await sleep(retryDelay(err, tries), signal);
      }
    }
  };

  const openTransport = async (signal: AbortSignal): Promise<void> => {
    const hook = tg.webhook;
    if (!hook) {
      // getUpdates answers 409 while a webhook is set; pending updates are kept, not dropped.
      await api!.deleteWebhook({ drop_pending_updates: false }, grammySignal(signal));
      poller = new Poller({
        api: api!,
        state: store,
        handle: (u) => inbound.handle(u),
        onOk: () => {
          if (state.type !== 'connected' && me)
            setState({ type: 'connected', since: Date.now(), account: `@${me.username}` });
        },
        onError: (err, retries) => {
          const lastError = describeFailure(err);
          log.warn({ error: lastError, retries }, 'telegram poll failed');
          setState({ type: 'degraded', since: Date.now(), lastError, retries });
        },
        ...(deps.pollTimeoutSeconds !== undefined ? { timeoutSeconds: deps.pollTimeoutSeconds } : {}),
      });
      poller.start();
      return;
    }
    const secret = webhookSecret(tg, token);
    registerCredential(secret);
    if (!server) {
      const started = await startWebhook({
        host: hook.host,
        port: hook.port,
        path: hook.path,
        secret,
        handle: (u) => inbound.handle(u),
        onRefused: (reason) => log.debug({ reason }, 'telegram webhook request refused'),
      });
      server = started.server;
      port = started.port;
    }
    await api!.setWebhook(
      hook.url,
      { secret_token: secret, allowed_updates: [...ALLOWED_UPDATES] },
      grammySignal(signal),
    );
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
    },
    async stop() {
      abort.abort();
      typing.clear();
      await connecting;
      await poller?.stop();
      poller = undefined;
      if (server) await new Promise<void>((r) => server!.close(() => r()));
      server = undefined;
      port = undefined;
      connecting = undefined;
      inbound.setHandler(undefined);
      me = undefined;
      if (tg.enabled) setState({ type: 'stopped' });
    },
    send: (chatId, item) => sender.send(chatId, item),
    async typing(chatId, on) {
      if (api && me) await typing.set(chatId, on);
    },
    status: () => state,
    webhookPort: () => port,
  };
}
