// The Slack channel (@slack/web-api, @slack/socket-mode): composition of the connection (auth.test),
// the transport (Socket Mode by default, or the Events API over HTTP), the inbound pipeline and the
// sender. Tests point `apiUrl` at a fake Slack on 127.0.0.1 (Web API and Socket Mode); nothing else is faked.
import type { Paths } from '../../config/paths.js';
import type { Config } from '../../config/schema.js';
import type { Logger } from '../../log.js';
import { registerCredential } from '../../log.js';
import { inboundDirOf } from '../../media/inbound.js';
import type { ChannelStateStore } from '../../store/channel-state.js';
import type { Channel, ChannelState, InboundHandler } from '../types.js';
import { DEFAULT_API_URL, makeApi, quietLogger, type SlackApi } from './api.js';
import { describeFailure, isAuthFailure, whoAmI } from './connect.js';
import { hintFor } from './errors.js';
import { startEventsServer } from './events-http.js';
import { Inbound, SLACK } from './inbound.js';
import { fetchSlackMedia } from './media-in.js';
import type { Me } from './normalize.js';
import { SLACK_TEXT_LIMIT } from './render.js';
import { Sender } from './send.js';
import { gateConfig, resolveSecrets, secretProblems } from './settings.js';
import { openSocket } from './socket.js';
import { SlackState } from './state.js';

export interface SlackChannelDeps {
  config: Config;
  paths: Pick<Paths, 'inboundMedia'>;
  log: Logger;
  state: ChannelStateStore;
  env: NodeJS.ProcessEnv;
  onState?: (state: ChannelState) => void;
  sleep?: (ms: number) => Promise<void>;
  handlerRetryDelaysMs?: readonly number[];
  helloTimeoutMs?: number;
}

export interface SlackChannel extends Channel {
  /** The events server's port in mode "http" (tests bind port 0). */
  eventsPort(): number | undefined;
}

const FILES_ORIGIN = 'https://files.slack.com';
const RETRY_MS = [1_000, 2_000, 5_000, 15_000, 30_000];

export function createSlackChannel(deps: SlackChannelDeps): SlackChannel {
  const { config } = deps;
  const cfg = config.slack;
  const log = deps.log.child({ channel: 'slack' });
  const store = new SlackState(deps.state);
  const apiUrl = cfg.apiUrl ?? DEFAULT_API_URL;
  const libLog = quietLogger((m) => log.debug({ lib: m }, 'slack library'));
  let state: ChannelState = cfg.enabled ? { type: 'stopped' } : { type: 'disabled' };
  const setState = (s: ChannelState) => {
    state = s;
    deps.onState?.(s);
  };
  let api: SlackApi | undefined;
  let me: Me | undefined;
  let botToken: string | undefined;
  let stopTransport: (() => Promise<void>) | undefined;
  let port: number | undefined;
  let connecting: Promise<void> | undefined;
  let abort = new AbortController();
  let stops = 0;
  /** Connected, with the count of chats whose sends stopped (status shows it as a failed check). */
  const connected = (): ChannelState => ({
    type: 'connected',
    since: Date.now(),
    ...(me && { account: `@${me.name}`, accountPublic: /^@[a-z0-9][a-z0-9._-]{0,79}$/.test(`@${me.name}`) }),
    ...(stops > 0 && {
      probe: {
        ok: false,
        at: Date.now(),
        detail: `sends stopped to ${stops} chat(s) Slack refused (not_in_channel, channel_not_found…)`,
      },
    }),
  });
  const refreshStops = async () => {
    stops = (await store.stoppedList()).length;
    if (state.type === 'connected') setState(connected());
  };
  const sender = new Sender({
    api: () => (me ? api : undefined),
    state: store,
    log,
    maxFileBytes: Math.floor(config.media.maxOutboundMb * 1048576),
    onAuthFailure: (code) => {
      log.error({ error: code }, 'slack refused the bot token: sends stop');
      setState({
        type: 'degraded',
        since: Date.now(),
        lastError: `Slack rejected the bot token (${code}: ${hintFor(code)})`,
        retries: 0,
      });
    },
    onStopsChanged: () => void refreshStops(),
    ...(deps.sleep && { sleep: deps.sleep }),
  });
  const inbound = new Inbound({
    gate: gateConfig(cfg, config.access),
    me: () => me,
    ...(cfg.teamId && { teamId: cfg.teamId }),
    threadSessions: cfg.threadSessions,
    maxBytes: Math.floor(config.media.maxInboundMb * 1048576),
    state: store,
    notify: async (chatId, text) => {
      const r = await sender.send(chatId, { type: 'text', text });
      if (!r.ok) log.warn({ error: r.error }, 'slack notice not sent');
    },
    onChatSpoke: async (conversation) => {
      // Writing to the bot again undoes a stop: it was invited back, or the channel restored.
      if (!(await store.stopped(conversation))) return;
      await store.setStopped(conversation, undefined);
      await refreshStops();
    },
    log,
    ...(deps.sleep && { sleep: deps.sleep }),
    ...(deps.handlerRetryDelaysMs && { handlerRetryDelaysMs: deps.handlerRetryDelaysMs }),
  });
  const secrets = resolveSecrets(cfg, deps.env);

  const openTransport = async (): Promise<void> => {
    const handle = (env: Parameters<Inbound['handle']>[0]) => inbound.handle(env);
    if (cfg.mode === 'http') {
      const s = await startEventsServer({
        ...cfg.http,
        signingSecret: secrets.signingSecret!,
        handle,
        onRefused: (reason) => log.debug({ reason }, 'slack events request refused'),
      });
      port = s.port;
      stopTransport = () => new Promise<void>((r) => s.server.close(() => r()));
      return;
    }
    const sock = await openSocket({
      appToken: secrets.appToken!,
      apiUrl,
      logger: libLog,
      handle,
      onUp: () => {
        if (state.type !== 'connected' && me) setState(connected());
      },
      onClosed: () => {
        if (abort.signal.aborted) return;
        log.warn('slack socket closed: opening a new one');
        setState({
          type: 'connecting',
          since: Date.now(),
          lastError: 'the link to Slack closed',
          retries: 0,
        });
        stopTransport = undefined;
        const signal = abort.signal;
        connecting = (connecting ?? Promise.resolve()).then(() => connect(signal));
      },
      onHandleError: (err) => log.error({ err: (err as Error).message }, 'slack event failed'),
      ...(deps.helloTimeoutMs !== undefined && { helloTimeoutMs: deps.helloTimeoutMs }),
      signal: abort.signal,
    });
    stopTransport = sock.stop;
  };

  const connect = async (signal: AbortSignal): Promise<void> => {
    for (let tries = 1; !signal.aborted; tries++) {
      let which = 'bot token';
      try {
        me = await whoAmI(api!);
        if (cfg.teamId && me.teamId !== cfg.teamId) {
          const reason = `the bot token belongs to workspace ${me.teamId}, not slack.teamId ${cfg.teamId}`;
          log.error({ state: 'degraded' }, `slack not started: ${reason}`);
          me = undefined;
          setState({ type: 'degraded', since: Date.now(), lastError: reason, retries: tries });
          return;
        }
        stops = (await store.stoppedList()).length;
        if (cfg.mode === 'socket') which = 'app-level token';
        await openTransport();
        if (signal.aborted) return;
        setState(connected());
        log.info({ account: `@${me.name}`, mode: cfg.mode }, 'slack connected');
        return;
      } catch (err) {
        if (signal.aborted) return;
        const lastError = describeFailure(err, which);
        log.warn({ error: lastError, retries: tries }, 'slack connect failed');
        if (isAuthFailure(err)) {
          me = undefined;
          setState({ type: 'degraded', since: Date.now(), lastError, retries: tries });
          return;
        }
        setState({ type: 'connecting', since: Date.now(), lastError, retries: tries });
        await new Promise<void>((r) => {
          const t = setTimeout(r, RETRY_MS[Math.min(tries - 1, RETRY_MS.length - 1)]);
          t.unref();
          signal.addEventListener(
            'abort',
            () => {
              clearTimeout(t);
              r();
            },
            { once: true },
          );
        });
      }
    }
  };

  return {
    name: SLACK,
    textLimit: SLACK_TEXT_LIMIT,
    async start(onInbound: InboundHandler) {
      if (!cfg.enabled || connecting) return;
      const problems = secretProblems(cfg, secrets);
      if (problems.length) {
        const lastError = problems.map((p) => p.message).join('; ');
        log.error({ state: 'degraded' }, `slack not started: ${lastError}`);
        setState({ type: 'degraded', since: Date.now(), lastError, retries: 0 });
        return;
      }
      for (const s of [secrets.botToken, secrets.appToken, secrets.signingSecret]) registerCredential(s);
      botToken = secrets.botToken;
      abort = new AbortController();
      api = makeApi(botToken!, apiUrl, libLog, abort.signal);
      inbound.setHandler(onInbound);
      sender.resetAuth();
      setState({ type: 'connecting', since: Date.now() });
      connecting = connect(abort.signal);
    },
    async stop() {
      abort.abort();
      await connecting;
      await stopTransport?.();
      stopTransport = undefined;
      port = undefined;
      connecting = undefined;
      inbound.setHandler(undefined);
      me = undefined;
      if (cfg.enabled) setState({ type: 'stopped' });
    },
    send: (chatId, item) => sender.send(chatId, item),
    edit: (chatId, ts, text) => sender.edit(chatId, ts, text),
    delete: (chatId, ts) => sender.delete(chatId, ts),
    fetchMedia: (chatId, remote) =>
      fetchSlackMedia(remote, {
        token: () => botToken,
        origins: [FILES_ORIGIN, new URL(apiUrl).origin],
        // Each chat's files in its own folder: a sandboxed agent sees only its own chat's.
        dir: inboundDirOf(deps.paths.inboundMedia, SLACK, chatId),
        maxBytes: Math.floor(config.media.maxInboundMb * 1048576),
      }),
    status: () => state,
    eventsPort: () => port,
  };
}
