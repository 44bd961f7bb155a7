// The relay service around LinkAlert: checks WhatsApp's state every 30 s while the relay runs, and
// sends through Twilio's REST API, loaded only when an SMS actually goes out (the twilio SDK costs
// about 60 ms and 30 MB: rule 9).

import type { Channel } from '../../channels/types.js';
import type { Config } from '../../config/schema.js';
import type { ChannelName } from '../../core/types.js';
import type { Logger } from '../../log.js';
import type { IncidentStore as StoredIncidents } from '../../store/alert-incidents.js';
import type { WhatsAppAuthStore } from '../../store/whatsapp-auth.js';
import { LinkAlert, type SendSms, twilioUnusable } from './service.js';
import type { IncidentStore } from './store.js';

const EVERY_MS = 30_000;

/** One SMS through Twilio's REST API (split like any message if long). */
export function twilioSms(config: Config, log: Logger, env: NodeJS.ProcessEnv): SendSms {
  return async (to, text) => {
    const { sendTwilioDirect } = await import('../../channels/twilio/direct.js');
    const r = await sendTwilioDirect({ config, log, env, to, text });
    return r.ok ? { ok: true } : { ok: false, error: r.error };
  };
}

/** What the relay hands the service (structurally its ServiceDeps; typed here so ops/ stays below relay.ts). */
export interface LinkAlertServiceDeps {
  config: Config;
  log: Logger;
  env: NodeJS.ProcessEnv;
  channels: ReadonlyMap<ChannelName, Pick<Channel, 'status'>>;
  store: { incidents: StoredIncidents; whatsapp: { auth: Pick<WhatsAppAuthStore, 'readCreds'> } };
}

export const linkAlertService = {
  name: 'alert',
  create(deps: LinkAlertServiceDeps): { start(): Promise<void>; stop(): Promise<void> } {
    const wa = deps.channels.get('whatsapp');
    const send = twilioSms(deps.config, deps.log, deps.env);
    const alert = new LinkAlert({
      config: deps.config,
      incidents: deps.store.incidents as IncidentStore,
      whatsappAuth: deps.store.whatsapp.auth,
      log: deps.log,
      env: deps.env,
      state: () => wa?.status(),
      send,
    });
    let timer: NodeJS.Timeout | undefined;
    return {
      async start() {
        if (!wa) return;
        const off = twilioUnusable(deps.config, deps.env);
        if (off) deps.log.info({ why: off }, 'WhatsApp alerts by SMS are off');
        timer = setInterval(() => void alert.tick(), EVERY_MS);
        timer.unref();
      },
      async stop() {
        clearInterval(timer);
      },
    };
  },
};
