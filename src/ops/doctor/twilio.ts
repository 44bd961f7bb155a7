// Twilio: credentials present (config or environment), a sender, someone allowed to write, and for
// webhook mode a free port and the public URL Twilio calls (signatures are computed over it;
// see docs/twilio.md).
import type { Config } from '../../config/schema.js';
import { type PortState, whoHolds } from './ports.js';
import { type Finding, fail, ok, warn } from './types.js';

const CHECK = 'twilio';

export function checkTwilio(
  config: Config,
  env: NodeJS.ProcessEnv,
  port: PortState | 'relay_running' | undefined,
): Finding[] {
  const t = config.twilio;
  if (!t.enabled) return [ok(CHECK, 'disabled in the config')];
  const out: Finding[] = [];
  const has = (v: string | undefined, name: string) => Boolean(v || env[name]);
  const sid = has(t.accountSid, 'TWILIO_ACCOUNT_SID');
  const token = has(t.authToken, 'TWILIO_AUTH_TOKEN');
  const apiKey = has(t.apiKey, 'TWILIO_API_KEY') && has(t.apiSecret, 'TWILIO_API_SECRET');
  if (!sid) out.push(fail(CHECK, 'no account SID', 'set twilio.accountSid or TWILIO_ACCOUNT_SID'));
  if (!token && !apiKey)
    out.push(
      fail(
        CHECK,
        'no credentials to call the REST API (neither an auth token nor an API key and secret)',
        'set TWILIO_AUTH_TOKEN (or twilio.authToken: "${TWILIO_AUTH_TOKEN}"), or TWILIO_API_KEY and TWILIO_API_SECRET',
      ),
    );
  if (!t.from && !t.messagingServiceSid)
    out.push(
      fail(
        CHECK,
        'no sender: neither twilio.from nor twilio.messagingServiceSid is set',
        'set twilio.from to your Twilio number (E.164, or whatsapp:+…)',
      ),
    );
  if (Array.isArray(t.allowFrom) && t.allowFrom.length === 0)
    out.push(
      warn(
        CHECK,
        'twilio.allowFrom is empty, so every sender is refused',
        'add your own number to twilio.allowFrom',
      ),
    );

  if (t.mode === 'webhook') {
    const w = t.webhook;
    if (w.insecureSkipSignature)
      out.push(
        warn(
          CHECK,
          'webhook signature checks are off: anyone who finds the URL can inject messages',
          'set twilio.webhook.insecureSkipSignature to false',
        ),
      );
    else if (!token)
      out.push(
        fail(
          CHECK,
          'webhook signatures cannot be checked without the auth token',
          'set TWILIO_AUTH_TOKEN (API keys cannot verify signatures)',
        ),
      );
    if (!w.publicUrl)
      out.push(
        warn(
          CHECK,
          'twilio.webhook.publicUrl is not set: signatures are checked against the URL as each request arrives, which is only right when Twilio reaches this port directly; behind a proxy or tunnel every message would be refused',
          `set twilio.webhook.publicUrl to the exact URL in the Twilio console (it reaches port ${w.port}${w.path}), or use twilio.mode "poll"`,
        ),
      );
    if (port === 'relay_running')
      out.push(ok(CHECK, `webhook port ${w.port}: the running relay listens there`));
    else if (port?.type === 'busy')
      out.push(
        fail(
          CHECK,
          `webhook port ${w.host}:${w.port} is already in use by another program`,
          `free it (${whoHolds(w.port)}) or change twilio.webhook.port`,
        ),
      );
    else if (port?.type === 'error')
      out.push(
        fail(
          CHECK,
          `cannot listen on ${w.host}:${w.port} (${port.code})`,
          port.code === 'EACCES'
            ? 'use a port above 1023 and put a reverse proxy in front'
            : 'check twilio.webhook.host is an address of this machine',
        ),
      );
  }
  if (out.every((f) => f.status === 'ok'))
    out.unshift(
      ok(
        CHECK,
        `credentials present, sender set, ${t.mode} mode${t.mode === 'webhook' ? ` on port ${t.webhook.port}` : ''}`,
      ),
    );
  return out;
}
