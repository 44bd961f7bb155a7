// The Discord channel: composition of the REST client (@discordjs/rest, whose per-route buckets
// handle rate limits), the gateway (gateway.ts), the inbound pipeline and the sender. Tests point
// `discord.apiRoot` at a fake Discord on 127.0.0.1, whose GET /gateway/bot names its own gateway.
import { API, type APIChannel, GatewayDispatchEvents, type GatewayDispatchPayload } from '@discordjs/core';
import { REST } from '@discordjs/rest';
import type { Paths } from '../../config/paths.js';
import type { Config } from '../../config/schema.js';
import type { Logger } from '../../log.js';
import { maskId, registerCredential } from '../../log.js';
import type { ChannelStateStore } from '../../store/channel-state.js';
import type { Channel, ChannelState, InboundHandler } from '../types.js';
import { type Timers, Typing } from '../typing.js';
import { fromInteraction, slashCommands } from './commands.js';
import { describeFailure } from './errors.js';
import { type Gateway, openGateway } from './gateway.js';
import { DISCORD, Inbound } from './inbound.js';
import { classify, type Me } from './normalize.js';
import { DISCORD_TEXT_LIMIT, Sender } from './send.js';
import { gateConfig, resolveToken } from './settings.js';
import { DiscordState } from './state.js';

export const DEFAULT_API_ROOT = 'https://discord.com/api';
/** Channel types that are threads (announcement, public, private). */
const THREAD_TYPES = new Set([10, 11, 12]);

export interface DiscordChannelDeps {
  config: Config;
  paths: Pick<Paths, 'inboundMedia'>;
  log: Logger;
  state: ChannelStateStore;
  env: NodeJS.ProcessEnv;
  transcribe?: (path: string) => Promise<string | undefined>;
  typingTimers?: Timers;
  sleep?: (ms: number) => Promise<void>;
}

/** The REST client every call goes through; a rate limit longer than a minute goes back to the outbox. */
export function makeRest(token: string, apiRoot: string | undefined): REST {
  return new REST({
    api: apiRoot ?? DEFAULT_API_ROOT,
    timeout: 60_000,
    rejectOnRateLimit: (r) => r.timeToReset > 60_000,
  }).setToken(token);
}

export function createDiscordChannel(deps: DiscordChannelDeps): Channel {
  const { config } = deps;
  const dc = config.discord;
  const log = deps.log.child({ channel: DISCORD });
  const store = new DiscordState(deps.state);
  let state: ChannelState = dc.enabled ? { type: 'stopped' } : { type: 'disabled' };
  let api: API | undefined;
  let rest: REST | undefined;
  let me: Me | undefined;
  let gateway: Gateway | undefined;
  let stopped = true;
  let abort = new AbortController();
  let connecting: Promise<void> | undefined;
  /** Chats the bot may not post in, for status. */
  const forbidden = new Map<string, string>();
  const parents = new Map<string, string | undefined>();

  const probe = () =>
    forbidden.size === 0
      ? {}
      : {
          probe: {
            ok: false,
            at: Date.now(),
            detail: `no access to ${[...forbidden.keys()].map(maskId).join(', ')} (${[...forbidden.values()].at(-1)}): sends there stopped`,
          },
        };
  const connected = (): ChannelState => ({
    type: 'connected',
    since: state.type === 'connected' ? state.since : Date.now(),
    ...(me && { account: `@${me.username}`, accountPublic: true }),
    ...probe(),
  });

  const sender = new Sender({
    api: () => (me ? api : undefined),
    state: store,
    log,
    maxFileBytes: Math.floor(config.media.maxOutboundMb * 1048576),
    onForbidden: (chatId, error) => {
      forbidden.set(chatId, error);
      if (state.type === 'connected') state = connected();
    },
    ...(deps.sleep && { sleep: deps.sleep }),
  });
  const inbound = new Inbound({
    gate: gateConfig(dc, config.access),
    state: store,
    media: {
      dir: deps.paths.inboundMedia,
      maxBytes: Math.floor(config.media.maxInboundMb * 1048576),
      apiRoot: dc.apiRoot,
    },
    threadSessions: dc.threadSessions,
    parentOf: async (channelId) => {
      if (parents.has(channelId)) return parents.get(channelId);
      const ch = (await api!.channels.get(channelId).catch(() => undefined)) as APIChannel | undefined;
      const parent =
        ch && THREAD_TYPES.has(ch.type) && 'parent_id' in ch ? (ch.parent_id ?? undefined) : undefined;
      if (ch) parents.set(channelId, parent);
      return parent;
    },
    ...(deps.transcribe && { transcribe: deps.transcribe }),
    notify: async (chatId, text) => {
      const r = await sender.send(chatId, { type: 'text', text });
      if (!r.ok) log.warn({ error: r.error }, 'discord notice not sent');
    },
    reopened: (chatId) => {
      forbidden.delete(chatId);
      if (state.type === 'connected') state = connected();
    },
    log,
    ...(deps.sleep && { sleep: deps.sleep }),
  });
  const typing = new Typing(
    { show: async (chatId) => api!.channels.showTyping(await sender.channelOf(api!, chatId)) },
    dc.typingIntervalSeconds * 1000,
    deps.typingTimers,
    (err) => log.debug({ err: (err as Error).message }, 'discord typing failed'),
  );

  const onDispatch = async (p: GatewayDispatchPayload): Promise<void> => {
    switch (p.t) {
      case GatewayDispatchEvents.Ready:
        me = { id: p.d.user.id, username: p.d.user.username };
        state = connected();
        log.info({ account: `@${me.username}` }, 'discord connected');
        if (dc.slashCommands) {
          await api!.applicationCommands
            .bulkOverwriteGlobalCommands(
              p.d.application.id,
              slashCommands(config.commands.prefix, config.commands),
            )
            .catch((err: Error) =>
              log.warn({ err: describeFailure(err) }, 'discord slash commands not registered'),
            );
        }
        return;
      case GatewayDispatchEvents.Resumed:
        state = connected();
        log.info('discord session resumed');
        return;
      case GatewayDispatchEvents.MessageCreate: {
        if (!me) return;
        const c = classify(p.d, me);
        if (c.type === 'ignore') {
          log.debug({ reason: c.reason }, 'discord message ignored');
          return;
        }
        await inbound.handle(c.msg);
        return;
      }
      case GatewayDispatchEvents.InteractionCreate: {
        const msg = fromInteraction(p.d);
        if (!msg || !me) return;
        const outcome = await inbound.handle(msg);
        // Answered only once the command is durable, and never for a stranger (no outcome).
        if (outcome && outcome.type !== 'failed') {
          await api!.interactions
            .reply(p.d.id, p.d.token, {
              content: `\`${msg.text.replace(/`/g, 'ˋ').slice(0, 1900)}\``,
              allowed_mentions: { parse: [] },
            })
            .catch((err: Error) =>
              log.debug({ err: describeFailure(err) }, 'discord interaction not answered'),
            );
        }
        return;
      }
      default:
        return;
    }
  };

  /** Who we are (the token is good), then the gateway; retried with a capped backoff until it works. */
  const connect = async (token: string) => {
    for (let tries = 1; !stopped; tries++) {
      try {
        const user = await api!.users.getCurrent({ signal: abort.signal });
        // A stop that came meanwhile found no gateway to close: none is opened after it.
        if (stopped) return;
        me = { id: user.id, username: user.username };
        gateway = openGateway(token, rest!, store, {
          dispatch: onDispatch,
          trouble: (detail) => {
            if (stopped) return;
            const fatal = fatalGateway(detail);
            if (fatal) {
              // The library does not reconnect after these: say what to do, in status and the log.
              log.error({ error: fatal }, 'discord gateway refused the bot');
              state = { type: 'degraded', since: Date.now(), lastError: fatal, retries: 0 };
              return;
            }
            log.warn({ error: detail }, 'discord gateway trouble');
            state = { type: 'connecting', since: Date.now(), lastError: detail };
          },
        });
        await gateway.connect();
        return;
      } catch (err) {
        if (stopped) return;
        const fatal = fatalGateway((err as Error)?.message ?? '');
        const lastError = fatal ?? describeFailure(err);
        log.warn({ error: lastError, retries: tries }, 'discord connect failed');
        // Still retried: the setting can be fixed in the portal while the relay runs.
        state = fatal
          ? { type: 'degraded', since: Date.now(), lastError, retries: tries }
          : { type: 'connecting', since: Date.now(), lastError, retries: tries };
        await gateway?.stop();
        gateway = undefined;
        await sleepUnless(abort.signal, Math.min(60_000, 1000 * 2 ** Math.min(tries, 6)));
      }
    }
  };

  return {
    name: DISCORD,
    textLimit: DISCORD_TEXT_LIMIT,
    async start(onInbound: InboundHandler) {
      if (!dc.enabled || connecting) return;
      const t = resolveToken(dc, deps.env);
      if (!t.ok) {
        log.error({ state: 'degraded' }, `discord not started: ${t.error}`);
        state = { type: 'degraded', since: Date.now(), lastError: t.error, retries: 0 };
        return;
      }
      registerCredential(t.token);
      rest = makeRest(t.token, dc.apiRoot);
      api = new API(rest);
      await inbound.load();
      for (const [chatId, f] of await store.forbiddenChats()) forbidden.set(chatId, f.error);
      inbound.setHandler(onInbound);
      stopped = false;
      abort = new AbortController();
      state = { type: 'connecting', since: Date.now() };
      connecting = connect(t.token);
    },
    async stop() {
      stopped = true;
      abort.abort();
      await typing.clear();
      // The gateway first: a connect still waiting for Discord then ends at once.
      await gateway?.stop();
      await connecting;
      await gateway?.stop();
      gateway = undefined;
      connecting = undefined;
      inbound.setHandler(undefined);
      me = undefined;
      if (dc.enabled) state = { type: 'stopped' };
    },
    send: (chatId, item) => sender.send(chatId, item),
    edit: (chatId, messageId, text) => sender.edit(chatId, messageId, text),
    delete: (chatId, messageId) => sender.delete(chatId, messageId),
    async typing(chatId, on) {
      if (api && me) await typing.set(chatId, on);
    },
    status: () => state,
  };
}

/** Waits `ms`, or less when the channel stops. */
const sleepUnless = (signal: AbortSignal, ms: number) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    });
  });

/** Gateway errors after which the library gives up (no resume, no reconnect), as what to do. */
export function fatalGateway(detail: string): string | undefined {
  if (/disallowed intents/i.test(detail))
    return 'Discord refused the Message Content intent (close 4014): turn it on in the Developer Portal → Bot → Privileged Gateway Intents (the relay keeps trying, at most a minute apart)';
  if (/authentication failed/i.test(detail))
    return 'Discord refused the bot token on the gateway (close 4004): set a new token (the relay keeps trying, at most a minute apart)';
  return undefined;
}
