// Every table the store holds, as the migrations that make them. The store is opened with all of
// them, whichever channels and services run: a table nobody uses costs nothing, and a module never
// finds its table missing because another process opened the file first.
import { alertMigration } from './alert-incidents.js';
import type { Migration } from './db.js';
import { eventsMigration } from './events.js';
import { scheduleMigration } from './job-states.js';
import { mediaHostMigration } from './media-links.js';
import { ownershipMigration } from './ownership-sqlite.js';
import { QUEUE_MIGRATIONS } from './queue-schema.js';
import { twilioMigration } from './twilio-sends.js';
import { whatsappMigration } from './whatsapp-auth.js';

export const ALL_MIGRATIONS: readonly Migration[] = [
  ...QUEUE_MIGRATIONS,
  whatsappMigration,
  twilioMigration,
  mediaHostMigration,
  scheduleMigration,
  alertMigration,
  eventsMigration,
  // Leases, the process registry and notifications: after the inbox, whose rows its queries read.
  ownershipMigration,
];
