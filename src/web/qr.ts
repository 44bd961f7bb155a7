// The QR text a channel state carries while WhatsApp waits for the code to be scanned.
import type { ChannelState } from '../channels/types.js';

export const qrOf = (state: ChannelState): string | undefined =>
  state.type === 'connecting' ? state.qr : undefined;
