// Relinking while the relay runs: `agentwire login` cannot open a second connection on
// the relay's link (the two would kick each other off), so it asks the running relay through the
// control socket's `whatsapp.link` method, then follows the QR code in the `status` answers. The web
// console shows the same QR. This file imports no Baileys: the method is registered in every relay.
import type { Channel } from '../types.js';

export type LinkStart =
  /** Already linked and connected. */
  | { type: 'linked'; account?: string }
  /** Linking (a QR code is, or will shortly be, in the channel's state) or connecting. */
  | { type: 'linking' }
  | { type: 'unavailable'; reason: string };

export interface Linkable {
  /** Starts linking again when the old link is dead (relink required); otherwise says where it stands. */
  link(): Promise<LinkStart>;
}

export const LINK_METHOD = 'whatsapp.link';

export const isLinkable = (c: Channel | undefined): c is Channel & Linkable =>
  c !== undefined && typeof (c as Partial<Linkable>).link === 'function';

interface Deps {
  channels: ReadonlyMap<string, Channel>;
  control: { register(name: string, handler: (params: unknown) => Promise<unknown>): void };
}

/** The relay service that registers `whatsapp.link` (it runs nothing itself). */
export const whatsappLinkService = {
  name: 'whatsapp-link',
  create(deps: Deps) {
    deps.control.register(LINK_METHOD, async (): Promise<LinkStart> => {
      const wa = deps.channels.get('whatsapp');
      if (!isLinkable(wa)) return { type: 'unavailable', reason: 'WhatsApp is not enabled in this relay' };
      return wa.link();
    });
    return { start: async () => {}, stop: async () => {} };
  },
};
