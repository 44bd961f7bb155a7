// How updates arrive: long polling (the default; deleteWebhook first, since getUpdates answers 409
// while a webhook is set, and pending updates are kept) or the webhook server plus setWebhook with
// its secret. Either way each update goes to `handle`.
import type { Update } from 'grammy/types';
import type { Config } from '../../config/schema.js';
import { registerCredential } from '../../log.js';
import { type BotApi, grammySignal } from './api.js';
import { ALLOWED_UPDATES, Poller } from './poll.js';
import { webhookSecret } from './settings.js';
import type { TelegramState } from './state.js';
import { startWebhook } from './webhook.js';

export interface Transport {
  stop(): Promise<void>;
  /** The webhook server's port (tests bind port 0). */
  port?: number;
}

export interface TransportDeps {
  api: BotApi;
  cfg: Config['telegram'];
  token: string;
  state: TelegramState;
  handle: (update: Update) => Promise<void>;
  onPollOk: () => void;
  onPollError: (err: unknown, retries: number) => void;
  onRefused: (reason: string) => void;
  onHandleError: (err: unknown) => void;
  pollTimeoutSeconds?: number;
}

export async function openTransport(deps: TransportDeps, signal: AbortSignal): Promise<Transport> {
  const { api, cfg } = deps;
  const hook = cfg.webhook;
  if (!hook) {
    await api.deleteWebhook({ drop_pending_updates: false }, grammySignal(signal));
    const poller = new Poller({
      api,
      state: deps.state,
      handle: deps.handle,
      onOk: deps.onPollOk,
      onError: deps.onPollError,
      onHandleError: deps.onHandleError,
      ...(deps.pollTimeoutSeconds !== undefined && { timeoutSeconds: deps.pollTimeoutSeconds }),
    });
    poller.start();
    return { stop: () => poller.stop() };
  }
  const secret = webhookSecret(cfg, deps.token);
  registerCredential(secret);
  const { server, port } = await startWebhook({
    host: hook.host,
    port: hook.port,
    path: hook.path,
    secret,
    handle: deps.handle,
    onRefused: deps.onRefused,
  });
  const stop = () => new Promise<void>((r) => server.close(() => r()));
  try {
    await api.setWebhook(
      hook.url,
      { secret_token: secret, allowed_updates: [...ALLOWED_UPDATES] },
      grammySignal(signal),
    );
  } catch (err) {
    // Closed before the next try opens the port again.
    await stop();
    throw err;
  }
  return { stop, port };
}
