// `agentwire send --channel twilio` without a running relay: one message straight through the REST API,
// split like any reply. No webhook server runs here, so local files cannot be hosted: text and https
// media URLs only.

import type { Config } from '../../config/schema.js';
import { chunkText } from '../../core/chunk.js';
import type { SendResult } from '../../core/types.js';
import { type Logger, registerSecret } from '../../log.js';
import type { TwilioSendStore } from '../../store/twilio-sends.js';
import { createRestClient } from './rest.js';
import { sendItem } from './sender.js';
import { resolveTwilioSettings, twilioTextRules } from './settings.js';
import { createTwilioStore } from './store.js';

export interface DirectSendOptions {
  config: Config;
  log: Logger;
  env?: NodeJS.ProcessEnv;
  /** When given, delivery records and blocked recipients are shared with the relay. */
  store?: TwilioSendStore;
  to: string;
  text?: string;
  mediaUrls?: readonly string[];
  retryDelayMs?: number;
  createClient?: typeof createRestClient;
}

export type DirectSendResult =
  | { ok: true; providerIds: string[] }
  | { ok: false; error: string; code?: string; retryable: boolean; providerIds: string[] };

export async function sendTwilioDirect(opts: DirectSendOptions): Promise<DirectSendResult> {
  const settings = resolveTwilioSettings(opts.config, opts.env ?? process.env);
  registerSecret(settings.authToken);
  registerSecret(settings.rest?.password);
  if (!settings.rest) {
    return {
      ok: false,
      error: 'Twilio credentials missing: set twilio.accountSid and twilio.authToken (or TWILIO_* variables)',
      retryable: false,
      providerIds: [],
    };
  }
  const deps = {
    settings,
    log: opts.log.child({ channel: 'twilio' }),
    client: (opts.createClient ?? createRestClient)(settings.rest, settings.apiBaseUrl),
    store: opts.store ? createTwilioStore(opts.store) : undefined,
    progress: new Map<string, number>(),
    retryDelayMs: opts.retryDelayMs ?? 1000,
  };
  const providerIds: string[] = [];
  const items = [
    // Split here rather than in sendItem so each part's provider id is reported.
    ...chunkText(opts.text ?? '', twilioTextRules(settings.chunkChars)).map((text) => ({
      type: 'text' as const,
      text,
    })),
    ...(opts.mediaUrls ?? []).map((url) => ({ type: 'url' as const, url })),
  ];
  if (items.length === 0) return { ok: false, error: 'nothing to send', retryable: false, providerIds };
  for (const item of items) {
    const r: SendResult = await sendItem(deps, opts.to, item);
    if (!r.ok) return { ok: false, error: r.error, code: r.code, retryable: r.retryable, providerIds };
    if (r.providerId) providerIds.push(r.providerId);
  }
  return { ok: true, providerIds };
}
