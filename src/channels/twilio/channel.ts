// The Twilio channel: webhook server (or poller), REST sender and media host behind the Channel seam.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import type { Paths } from '../../config/paths.js';
import type { Config } from '../../config/schema.js';
import type { OutboundItem, SendResult } from '../../core/types.js';
import { type Logger, registerSecret } from '../../log.js';
import { createMediaHost, type MediaHost } from '../../media/host.js';
import type { MediaLinkStore } from '../../store/media-links.js';
import type { TwilioSendStore } from '../../store/twilio-sends.js';
import { type ConsumerPart, consumeWhileHeld, type SingleConsumer, withLiveHolder } from '../single.js';
import type { Channel, ChannelState, InboundHandler, SendOptions } from '../types.js';
import { parseSender } from './address.js';
import { createTwilioApp } from './app.js';
import { fetchInboundMedia, type InboundDeps, processInbound } from './inbound.js';
import type { DownloadNet } from './media-download.js';
import { type PollResult, pollOnce } from './poll.js';
import { createRestClient, type TwilioClient } from './rest.js';
import { type SenderDeps, sendItem } from './sender.js';
import { resolveTwilioSettings } from './settings.js';
import { createTwilioStore, type Delivery } from './store.js';
import { createStoreRetry, STORE_RETRY, type StoreRetryOptions } from './store-retry.js';

export interface TwilioChannelDeps {
  config: Config;
  paths: Paths;
  /** The channel's records and the hosted media's links, in the store. */
  store: { twilio: TwilioSendStore; mediaLinks: MediaLinkStore };
  log: Logger;
  env?: NodeJS.ProcessEnv;
  /** The network edge of inbound media downloads (default: this machine's DNS and http(s)). */
  net?: DownloadNet;
  /** Builds the REST client (default: the twilio SDK against twilio.apiBaseUrl). */
  createClient?: typeof createRestClient;
  /** Backoff before the one immediate retry of a transient send failure (default 1 s). */
  retryDelayMs?: number;
  /** How a webhook whose message the store refused is held and retried (default STORE_RETRY). */
  storeRetry?: StoreRetryOptions;
  /** Poll mode's lease (two pollers would answer a message twice); absent: this process polls. */
  single?: SingleConsumer;
}

export interface TwilioChannel extends Channel {
  /** The local port the webhook server listens on, once started. */
  port(): number | undefined;
  /** Delivery status of one sent message (by provider SID), as status callbacks reported it. */
  deliveryStatus(providerSid: string): Promise<Delivery | undefined>;
  /** One poll now (poll mode); also what the timer runs. */
  pollOnce(): Promise<PollResult>;
}

export function createTwilioChannel(deps: TwilioChannelDeps): TwilioChannel {
  const log = deps.log.child({ channel: 'twilio' });
  const settings = resolveTwilioSettings(deps.config, deps.env ?? process.env);
  registerSecret(settings.authToken);
  registerSecret(settings.rest?.password);
  const store = createTwilioStore(deps.store.twilio);
  const client: TwilioClient | undefined = settings.rest
    ? (deps.createClient ?? createRestClient)(settings.rest, settings.apiBaseUrl)
    : undefined;
  const host: MediaHost = createMediaHost({
    links: deps.store.mediaLinks,
    dir: deps.paths.hostedMedia,
    ttlSeconds: settings.mediaUrlTtlSeconds,
  });
  const sender: SenderDeps = {
    settings,
    log,
    client,
    store,
    host,
    progress: new Map(),
    retryDelayMs: deps.retryDelayMs ?? 1000,
  };
  // Sends that fail for the whole channel (Twilio unreachable, 5xx, rate limits, credentials
  // refused: 20003) mark it degraded, so `status` and /healthz show it rather than "connected"
  // while every reply sits in the outbox; the next send that goes through clears it. A refusal of
  // one recipient (a bad number, an opt-out) says nothing about the channel.
  let sendFailures = 0;
  const send = async (chatId: string, item: OutboundItem, opts?: SendOptions): Promise<SendResult> => {
    const r = await sendItem(sender, chatId, item, opts);
    if (r.ok) {
      if (sendFailures > 0 && state.type === 'degraded') state = { type: 'connected', since: Date.now() };
      sendFailures = 0;
    } else if (
      (r.retryable || r.code === '20003') &&
      (state.type === 'connected' || state.type === 'degraded')
    ) {
      sendFailures++;
      state = {
        type: 'degraded',
        since: state.type === 'degraded' ? state.since : Date.now(),
        lastError: `sending failed: ${r.error}`,
        retries: sendFailures,
      };
    }
    return r;
  };
  const inbound: InboundDeps = {
    settings,
    log,
    store,
    ...(deps.net ? { net: deps.net } : {}),
    mediaDir: deps.paths.inboundMedia,
    notify: (chatId, text) => void send(chatId, { type: 'text', text }).catch(() => undefined),
  };

  // Direct REST, not the outbox: the store that refused the message would refuse the notice too.
  const storeRetry = createStoreRetry(deps.storeRetry ?? STORE_RETRY, inbound.notify, log);

  let state: ChannelState = settings.enabled ? { type: 'stopped' } : { type: 'disabled' };
  let server: Server | undefined;
  let handler: InboundHandler | undefined;
  let timers: NodeJS.Timeout[] = [];
  let polling: Promise<unknown> = Promise.resolve();
  let stopped = false;
  let pollFailures = 0;
  /** Poll mode: the poller runs while this process holds its lease. */
  let poller: ConsumerPart | undefined;
  let pollTimer: NodeJS.Timeout | undefined;

  const runPoll = (): Promise<PollResult> => {
    if (!client || !handler) return Promise.reject(new Error('Twilio REST credentials are not configured'));
    const h = handler;
    return pollOnce({
      settings,
      log,
      client,
      store,
      process: (parsed, at) => processInbound(inbound, h, parsed, at),
      sendText: (chatId, text) => send(chatId, { type: 'text', text }),
    });
  };

  const pollLoop = async (): Promise<void> => {
    if (stopped || !poller?.running()) return;
    const run = runPoll().then(
      () => {
        pollFailures = 0;
        state = { type: 'connected', since: Date.now() };
      },
      (err: Error) => {
        pollFailures++;
        log.warn({ error: err.message, retries: pollFailures }, 'twilio: poll failed');
        state = { type: 'degraded', since: Date.now(), lastError: 'poll failed', retries: pollFailures };
      },
    );
    polling = run;
    await run;
    if (!stopped && poller?.running()) pollTimer = setTimeout(pollLoop, settings.pollSeconds * 1000);
  };
  const startPolling = () => {
    poller = consumeWhileHeld(
      deps.single,
      { start: () => pollLoop(), stop: stopPolling },
      (err) => log.error({ err: (err as Error).message }, 'twilio: poll handover failed'),
      () => clearTimeout(pollTimer),
    );
  };
  /** Another process polls now (it took over, or this one stops): only sends and webhooks here. */
  const stopPolling = async () => {
    clearTimeout(pollTimer);
    await polling;
    const holder = deps.single?.heldBy() ?? 'held by another process';
    if (!stopped) state = { type: 'elsewhere', since: Date.now(), holder };
  };

  return {
    name: 'twilio',
    textLimit: settings.chunkChars,
    checksResends: true,
    status: () => withLiveHolder(state, deps.single),
    port: () => (server?.address() as AddressInfo | null)?.port,
    deliveryStatus: (sid) => store.delivery(sid),
    pollOnce: runPoll,
    send,
    fetchMedia: (chatId, remote) => fetchInboundMedia(inbound, chatId, remote),

    async start(onInbound) {
      if (!settings.enabled) return;
      stopped = false;
      handler = onInbound;
      if (settings.insecureSkipSignature) {
        log.warn(
          'twilio: webhook signature checks are OFF (webhook.insecureSkipSignature); anyone can post messages',
        );
      } else if (!settings.authToken && settings.mode === 'webhook') {
        log.error(
          'twilio: no auth token (twilio.authToken / TWILIO_AUTH_TOKEN): the webhook refuses every request',
        );
      }
      if (settings.statusCallbacks && !settings.publicStatusUrl) {
        log.warn(
          'twilio: statusCallbacks needs twilio.webhook.publicUrl; no status callbacks will be requested',
        );
      }
      if (!client) log.warn('twilio: no REST credentials; replies cannot be sent');
      // The SDK loads its REST modules on first use (tens of ms of compiling, measured in
      // bench/webhook-ack): here, not in the middle of the first burst of webhooks and replies.
      else void client.messages;
      state = { type: 'connecting', since: Date.now() };
      if (settings.mode === 'webhook' || settings.mediaBaseUrl) {
        const app = createTwilioApp({
          settings,
          log,
          host,
          onInbound: (parsed) =>
            storeRetry.run(parseSender(parsed.from).chatId, parsed.messageSid, () =>
              processInbound(inbound, onInbound, parsed),
            ),
          onStatus: async ({ sid, status, errorCode }) => {
            const now = await store.recordStatus(sid, status, errorCode);
            if (errorCode) log.warn({ sid, status: now, code: errorCode }, 'twilio: delivery failed');
          },
        });
        try {
          server = await listen(app, settings.port, settings.host);
        } catch (err) {
          state = { type: 'degraded', since: Date.now(), lastError: (err as Error).message, retries: 0 };
          throw err;
        }
      }
      const sweep = setInterval(() => void host.sweep().catch(() => undefined), 60_000);
      const prune = setInterval(() => void store.prune().catch(() => undefined), 3_600_000);
      sweep.unref();
      prune.unref();
      timers.push(sweep, prune);
      if (settings.mode === 'poll') {
        if (deps.single)
          state = { type: 'elsewhere', since: Date.now(), holder: 'waiting for the poll lease' };
        startPolling();
        // The first poll before start resolves when nothing else polls, as before the lease.
        if (!deps.single) await poller?.settled();
      } else state = { type: 'connected', since: Date.now() };
    },

    async stop() {
      stopped = true;
      storeRetry.stop();
      for (const t of timers) clearTimeout(t);
      timers = [];
      clearTimeout(pollTimer);
      await poller?.cancel();
      poller = undefined;
      await polling;
      if (server) {
        const s = server;
        server = undefined;
        await new Promise<void>((resolve) => {
          s.close(() => resolve());
          s.closeAllConnections();
        });
      }
      if (state.type !== 'disabled') state = { type: 'stopped' };
    },
  };
}

function listen(app: Express, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host);
    server.once('listening', () => resolve(server));
    server.once('error', (err) =>
      reject(new Error(`twilio webhook cannot listen on ${host}:${port}: ${err.message}`)),
    );
  });
}
