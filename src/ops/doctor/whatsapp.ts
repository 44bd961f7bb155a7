// WhatsApp: linked means credentials are in the store. That is not health (only the running relay
// knows whether the socket is up, see `agentwire status`), but without them nothing can connect.
import type { Config } from '../../config/schema.js';
import { type Finding, fail, ok, warn } from './types.js';

export type LinkState = 'linked' | 'not_linked' | 'logged_out' | 'unknown';

export function checkWhatsapp(config: Config, link: LinkState): Finding {
  if (!config.whatsapp.enabled) return ok('whatsapp', 'disabled in the config');
  switch (link) {
    case 'linked':
      return ok('whatsapp', 'linked (credentials are in the store)');
    case 'not_linked':
      return warn(
        'whatsapp',
        'not linked to a phone yet',
        'run `agentwire login` and scan the QR code with WhatsApp → Linked devices (or start the relay and open the web console)',
      );
    case 'logged_out':
      return fail(
        'whatsapp',
        'the phone unlinked this device (WhatsApp logged it out); the relay cannot connect until it is linked again',
        'run `agentwire login` and scan the new QR code',
      );
    case 'unknown':
      return warn(
        'whatsapp',
        'could not tell whether WhatsApp is linked (the store could not be read)',
        'run `agentwire status`; if the relay cannot open the store, check the permissions findings above',
      );
  }
}
