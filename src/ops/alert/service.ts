// The alert by another route: when WhatsApp stays degraded or needs a relink for longer
// than `whatsapp.liveness.alertAfterMinutes`, one SMS through Twilio tells the owner, and one more
// when it works again. The decision is policy.ts; this file stores the incident and sends.
import type { ChannelState } from '../../channels/types.js';
import { isE164 } from '../../channels/whatsapp/jid.js';
import { storedAccount } from '../../channels/whatsapp/link-state.js';
import type { Config } from '../../config/schema.js';
import type { Logger } from '../../log.js';
import type { WhatsAppAuthStore } from '../../store/whatsapp-auth.js';
import { decideAlert } from './policy.js';
import type { IncidentStore } from './store.js';

export type SmsResult = { ok: true } | { ok: false; error: string };
export type SendSms = (to: string, text: string) => Promise<SmsResult>;

export interface LinkAlertDeps {
  config: Pick<Config, 'whatsapp' | 'twilio'>;
  /** Where the open incident is kept. */
  incidents: IncidentStore;
  /** The linked number (the default alert target) is read from the stored WhatsApp creds. */
  whatsappAuth: Pick<WhatsAppAuthStore, 'readCreds'>;
  log: Logger;
  env: NodeJS.ProcessEnv;
  /** WhatsApp's current state (undefined when the channel is not running). */
  state: () => ChannelState | undefined;
  send: SendSms;
  now?: () => number;
}

const CHANNEL = 'whatsapp';
// A request that never reached Twilio was not sent: the claim is released and the next tick tries
// again. Any other failure (Twilio refused it, or the answer was lost) keeps the claim: at most one.
const NOT_SENT = /network error (ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ENETUNREACH|EHOSTUNREACH)/;

/** Why no SMS can go out, or undefined when Twilio can send one (credentials and a sender). */
export function twilioUnusable(config: Pick<Config, 'twilio'>, env: NodeJS.ProcessEnv): string | undefined {
  const t = config.twilio;
  const sid = t.accountSid || env.TWILIO_ACCOUNT_SID;
  const secret =
    t.authToken ||
    env.TWILIO_AUTH_TOKEN ||
    ((t.apiKey || env.TWILIO_API_KEY) && (t.apiSecret || env.TWILIO_API_SECRET));
  if (!sid || !secret) return 'no Twilio credentials';
  if (!t.from && !t.messagingServiceSid) return 'no twilio.from or twilio.messagingServiceSid';
  return undefined;
}

export class LinkAlert {
  private readonly store: IncidentStore;
  private readonly now: () => number;
  private busy = false;
  private warned = false;

  constructor(private readonly deps: LinkAlertDeps) {
    this.store = deps.incidents;
    this.now = deps.now ?? Date.now;
  }

  /** Where the SMS goes: whatsapp.liveness.alertTo, else the linked WhatsApp number (the owner's phone). */
  private async target(): Promise<string | undefined> {
    const to = this.deps.config.whatsapp.liveness.alertTo;
    if (to) return to;
    try {
      const own = await storedAccount(this.deps.whatsappAuth);
      return own && isE164(own) ? own : undefined;
    } catch {
      return undefined;
    }
  }

  async tick(): Promise<void> {
    const state = this.deps.state();
    if (!state || this.busy) return;
    this.busy = true;
    try {
      await this.step(state);
    } catch (err) {
      this.deps.log.error({ err: (err as Error).message }, 'whatsapp alert check failed');
    } finally {
      this.busy = false;
    }
  }

  private async step(state: ChannelState): Promise<void> {
    const { log } = this.deps;
    const incident = await this.store.get(CHANNEL);
    const d = decideAlert({
      state,
      incident,
      now: this.now(),
      alertAfterMs: this.deps.config.whatsapp.liveness.alertAfterMinutes * 60_000,
    });
    switch (d.type) {
      case 'none':
        return;
      case 'open':
        this.warned = false;
        await this.store.put(CHANNEL, d.incident);
        return;
      case 'close':
        await this.store.clear(CHANNEL);
        return;
      case 'alert': {
        const to = await this.target();
        const unusable =
          twilioUnusable(this.deps.config, this.deps.env) ??
          (to ? undefined : 'no number to send it to (set whatsapp.liveness.alertTo)');
        if (unusable || !to) {
          if (!this.warned) log.warn({ why: unusable }, 'whatsapp is down, but no alert SMS can be sent');
          this.warned = true;
          return;
        }
        // Claimed before the send: a crash mid-send loses one alert rather than sending two.
        await this.store.put(CHANNEL, d.incident);
        const r = await this.deps.send(to, d.text);
        if (r.ok) log.warn({ kind: d.incident.kind }, 'whatsapp down: alert SMS sent to the owner');
        else {
          log.error({ error: r.error }, 'whatsapp down: alert SMS failed');
          if (NOT_SENT.test(r.error))
            await this.store.put(CHANNEL, { kind: d.incident.kind, since: d.incident.since });
        }
        return;
      }
      case 'recover': {
        await this.store.clear(CHANNEL);
        const to = await this.target();
        if (!to) return;
        const r = await this.deps.send(to, d.text);
        if (r.ok) log.info('whatsapp recovered: SMS sent to the owner');
        else log.error({ error: r.error }, 'whatsapp recovered: SMS failed');
        return;
      }
      default: {
        const never: never = d;
        throw new Error(`unhandled alert decision ${JSON.stringify(never)}`);
      }
    }
  }
}
