// Socket Mode (the default): the app opens a WebSocket to Slack (apps.connections.open with the
// app-level token, then the URL it returns), so no public URL is needed. Each `events_api` envelope
// is acknowledged only when the inbound pipeline says the message is durable; one never acknowledged
// is delivered again by Slack (with `retry_attempt`). Other envelope types (interactivity, slash
// commands) are acknowledged and ignored. The library's own reconnect is off: when its new
// apps.connections.open fails on the network it rejects a promise nobody awaits, which would end
// the relay; a closed link is reported (`onClosed`) and the channel opens a new one with its backoff.
import { SocketModeClient } from '@slack/socket-mode';
import type { Logger as SlackLogger } from '@slack/web-api';
import { endedBy } from './api.js';
import type { Ack, Envelope } from './inbound.js';

export interface SocketDeps {
  appToken: string;
  apiUrl: string;
  logger: SlackLogger;
  handle: (env: Envelope) => Promise<Ack>;
  onUp: () => void;
  /** The link closed after it was up (Slack recycles links, the network dropped): open a new one. */
  onClosed: () => void;
  onHandleError: (err: unknown) => void;
  /** How long the link may stay silent before Slack's `hello` (default 30 s). */
  helloTimeoutMs?: number;
  /** The channel stopping: a link still waiting for `hello` is dropped at once. */
  signal?: AbortSignal;
}

interface SlackEventArgs {
  ack: () => Promise<void>;
  type: string;
  body?: { event_id?: string; team_id?: string; event?: Envelope['event'] };
  retry_num?: number;
}

export async function openSocket(deps: SocketDeps): Promise<{ stop(): Promise<void> }> {
  const client = new SocketModeClient({
    appToken: deps.appToken,
    logger: deps.logger,
    autoReconnectEnabled: false,
    // apps.connections.open is retried by the client itself; a few quick tries, then our own backoff.
    clientOptions: {
      slackApiUrl: deps.apiUrl,
      retryConfig: { retries: 2, factor: 1.5, minTimeout: 200 },
      ...(deps.signal && { fetch: endedBy(deps.signal) }),
    },
  });
  client.on('slack_event', (args: SlackEventArgs) => {
    void (async () => {
      if (args.type !== 'events_api' || !args.body?.event) return args.ack();
      const b = args.body;
      const env: Envelope = {
        event: b.event!,
        ...(b.event_id && { eventId: b.event_id }),
        ...(b.team_id && { teamId: b.team_id }),
        ...(typeof args.retry_num === 'number' && { retryNum: args.retry_num }),
      };
      if ((await deps.handle(env)) === 'ack') await args.ack();
    })().catch(deps.onHandleError);
  });
  let up = false;
  let stopping = false;
  client.on('connected', () => deps.onUp());
  client.on('disconnected', () => {
    // Before start() resolved, its rejection says it; on our own stop nothing is to be done.
    if (up && !stopping) deps.onClosed();
    up = false;
  });
  // start() resolves on Slack's `hello`; a link that opens and never says it would hang the channel
  // in `connecting` for good, so it is dropped and the channel's backoff tries a new one.
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const silent = new Promise<never>((_r, reject) => {
    timer = setTimeout(
      () => reject(new Error('no hello from Slack on the new link')),
      deps.helloTimeoutMs ?? 30_000,
    );
    timer.unref();
    onAbort = () => reject(new Error('the Slack channel stopped'));
    if (deps.signal?.aborted) onAbort();
    else deps.signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([client.start(), silent]);
  } catch (err) {
    stopping = true;
    await client.disconnect().catch(() => undefined);
    throw err;
  } finally {
    clearTimeout(timer);
    if (onAbort) deps.signal?.removeEventListener('abort', onAbort);
  }
  up = true;
  return {
    stop: async () => {
      stopping = true;
      await client.disconnect().catch(() => undefined);
    },
  };
}
