// The Twilio channel (SMS, and WhatsApp through Twilio) as the rest of agentwire sees it
// (src/channels/plugin.ts). Light on purpose: the twilio SDK is imported by `create` only.
import type { ChannelPlugin } from '../plugin.js';
import { parseRecipient } from './address.js';
import { twilioTextRules } from './settings.js';

export const twilioPlugin: ChannelPlugin = {
  name: 'twilio',
  displayName: 'Twilio',
  enabled: (c) => c.twilio.enabled,
  create: async (d) => {
    const { createTwilioChannel } = await import('./channel.js');
    return createTwilioChannel({
      config: d.config,
      paths: d.paths,
      store: d.store,
      log: d.log,
      env: d.env,
      ...(d.single && { single: d.single }),
    });
  },
  // Poll mode lists the account's messages: two pollers would answer each one twice. Webhooks go
  // to whichever process the load balancer picks, each stored once by its MessageSid.
  single: (c) => c.twilio.mode === 'poll',
  // `+15551234567` (SMS) or `whatsapp:+15551234567` (WhatsApp through Twilio): one person either way.
  isChatId: (id) => parseRecipient(id) !== undefined,
  chatKind: () => 'direct',
  exampleChatId: '+15551234567',
  chatIdHelp: 'an E.164 number like +15551234567 (or whatsapp:+1555…)',
  textRules: (c) => twilioTextRules(c.twilio.chunkChars),
  // The webhook's signature header (the auth token and API secret fields are masked by any logger).
  logRedactPaths: ['headers["x-twilio-signature"]'],
  secrets: (c, env) => [c.twilio.authToken, c.twilio.apiSecret, env.TWILIO_AUTH_TOKEN, env.TWILIO_API_SECRET],
};
