// Socket Mode (the default): the app opens a WebSocket to Slack (apps.connections.open with the
// app-level token, then the URL it returns), so no public URL is needed. Each `events_api` envelope
// is acknowledged only when the inbound pipeline says the message is durable; one never acknowledged
// is delivered again by Slack (with `retry_attempt`). Other envelope types (interactivity, slash
// commands) are acknowledged and ignored. The library reconnects by itself when Slack recycles a link.
import { SocketModeClient } from '@slack/socket-mode';
import type { Logger as SlackLogger } from '@slack/web-api';
import type { Ack, Envelope } from './inbound.js';

export interface SocketDeps {
  appToken: string;
  apiUrl: string;
  logger: SlackLogger;
  handle: (env: Envelope) => Promise<Ack>;
  onUp: () => void;
  onDown: (why: string) => void;
  onHandleError: (err: unknown) => void;
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
    // apps.connections.open is retried by the client itself; a few quick tries, then our own backoff.
    clientOptions: { slackApiUrl: deps.apiUrl, retryConfig: { retries: 2, factor: 1.5, minTimeout: 200 } },
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
  client.on('connected', () => deps.onUp());
  client.on('reconnecting', () => deps.onDown('reconnecting to Slack'));
  await client.start();
  return {
    stop: async () => {
      await client.disconnect().catch(() => undefined);
    },
  };
}
