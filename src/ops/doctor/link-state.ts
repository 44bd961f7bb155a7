// Whether WhatsApp credentials are in the store, read without opening a WhatsApp socket.
// No database file means nothing was ever linked.
import { existsSync } from 'node:fs';
import type { Paths } from '../../config/paths.js';
import type { LinkState } from './whatsapp.js';

export function linkStateFromStore(paths: Paths): LinkState {
  if (!existsSync(paths.db)) return 'not_linked';
  return 'unknown';
}
