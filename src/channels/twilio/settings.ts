// The Twilio section of the config resolved once against the environment: credentials, the public
// URLs Twilio calls (which signatures are checked against), and the local routes behind them.

import type { Config } from '../../config/schema.js';
import { directAllowList } from '../../core/roles.js';
import type { TextRules } from '../plugin.js';

export const TWILIO_API = 'https://api.twilio.com';

export interface RestCredentials {
  accountSid: string;
  /** API key SID or the account SID. */
  username: string;
  /** API key secret or the auth token. */
  password: string;
}

export interface TwilioSettings {
  enabled: boolean;
  mode: 'webhook' | 'poll';
  pollSeconds: number;
  accountSid?: string;
  /** Needed to check webhook signatures; without it (and without the insecure switch) webhooks fail closed. */
  authToken?: string;
  rest?: RestCredentials;
  apiBaseUrl: string;
  from?: string;
  messagingServiceSid?: string;
  allowFrom: '*' | string[];
  refusalText?: string;
  chunkChars: number;
  mediaTimeoutMs: number;
  maxInboundBytes: number;
  mediaUrlTtlSeconds: number;
  insecureSkipSignature: boolean;
  host: string;
  port: number;
  /** Local routes. */
  inboundPath: string;
  statusPath: string;
  mediaPath: string;
  /** Public URLs, when known. */
  publicUrl?: string;
  publicStatusUrl?: string;
  mediaBaseUrl?: string;
  statusCallbacks: boolean;
}

export function resolveTwilioSettings(config: Config, env: NodeJS.ProcessEnv): TwilioSettings {
  const t = config.twilio;
  const accountSid = t.accountSid || env.TWILIO_ACCOUNT_SID || undefined;
  const authToken = t.authToken || env.TWILIO_AUTH_TOKEN || undefined;
  const apiKey = t.apiKey || env.TWILIO_API_KEY || undefined;
  const apiSecret = t.apiSecret || env.TWILIO_API_SECRET || undefined;
  let rest: RestCredentials | undefined;
  if (accountSid && apiKey && apiSecret) rest = { accountSid, username: apiKey, password: apiSecret };
  else if (accountSid && authToken) rest = { accountSid, username: accountSid, password: authToken };

  const base = t.webhook.path.replace(/\/+$/, '') || '';
  const publicUrl = t.webhook.publicUrl;
  return {
    enabled: t.enabled,
    mode: t.mode,
    pollSeconds: t.pollSeconds,
    accountSid,
    authToken,
    rest,
    apiBaseUrl: (t.apiBaseUrl ?? TWILIO_API).replace(/\/+$/, ''),
    from: t.from,
    messagingServiceSid: t.messagingServiceSid,
    // `dm` and access.owners / access.guests widen or narrow it (core/roles.ts).
    allowFrom: directAllowList(t.dm, t.allowFrom, config.access, 'twilio') ?? [],
    refusalText: t.refusalText,
    chunkChars: t.chunkChars,
    mediaTimeoutMs: t.mediaTimeoutSeconds * 1000,
    maxInboundBytes: Math.floor(config.media.maxInboundMb * 1024 * 1024),
    mediaUrlTtlSeconds: t.mediaUrlTtlSeconds,
    insecureSkipSignature: t.webhook.insecureSkipSignature,
    host: t.webhook.host,
    port: t.webhook.port,
    inboundPath: t.webhook.path,
    statusPath: `${base}/status`,
    mediaPath: `${base}/media`,
    publicUrl,
    publicStatusUrl: publicUrl ? siblingUrl(publicUrl, 'status') : undefined,
    mediaBaseUrl: (
      t.mediaBaseUrl ?? (publicUrl ? siblingUrl(publicUrl, 'media', false) : undefined)
    )?.replace(/\/+$/, ''),
    statusCallbacks: t.statusCallbacks,
  };
}

/**
 * `<publicUrl path>/<leaf>`, keeping the query (a proxy may need it) unless told not to, and never the
 * fragment. A proxy that maps the public webhook path to the local one maps these sub-paths the same way.
 */
export function siblingUrl(publicUrl: string, leaf: string, keepQuery = true): string {
  const u = new URL(publicUrl);
  u.hash = '';
  if (!keepQuery) u.search = '';
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/${leaf}`;
  return u.toString();
}

/**
 * Twilio refuses a Body over 1,600 characters (errors 21617 / 21658), SMS and WhatsApp alike (the
 * schema caps twilio.chunkChars there); the one splitter counts UTF-16 code units, never fewer than
 * Twilio counts. An SMS shows Markdown fences as text, so they are not re-opened across messages.
 */
export const twilioTextRules = (chunkChars: number): TextRules => ({ limit: chunkChars, fences: false });
