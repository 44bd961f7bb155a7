// The migrations the relay core needs. Other modules (WhatsApp auth, schedules) append their own
// Migration to the list handed to openDb in relay.ts; each module owns its tables.
import type { Migration } from './db.js';
import { inboxMigration } from './inbox.js';
import { outboxMigration } from './outbox.js';
import { runsMigration } from './runs.js';
import { sessionsMigration } from './sessions.js';
import { tasksMigration } from './tasks.js';

export const CORE_MIGRATIONS: readonly Migration[] = [
  inboxMigration,
  outboxMigration,
  sessionsMigration,
  runsMigration,
  // Agents' scheduled tasks: the queue's /tasks command and the tools read them in every process.
  tasksMigration,
];
