// The migrations of the queue's tables. sqlite/schema.ts adds every other module's (WhatsApp,
// Twilio, media links, schedules, alerts); each module owns its tables.
import { channelStateMigration } from './channel-state.js';
import type { Migration } from './db.js';
import { inboxMigration } from './inbox.js';
import { interactionsMigration } from './interactions.js';
import { outboxMigration } from './outbox.js';
import { runsMigration } from './runs.js';
import { sessionsMigration } from './sessions.js';
import { tasksMigration } from './tasks.js';

export const QUEUE_MIGRATIONS: readonly Migration[] = [
  inboxMigration,
  outboxMigration,
  sessionsMigration,
  runsMigration,
  // every channel's small state (offsets, dedupe ids), so a new channel needs no migration of its own
  channelStateMigration,
  // Agents' scheduled tasks: the queue's /tasks command and the tools read them in every process.
  tasksMigration,
  // Questions and approvals a run waits on, and allowances: chat commands read them in every process.
  interactionsMigration,
];
