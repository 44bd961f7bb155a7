// A real store in a temp state folder, filled through the modules' own functions.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { InboundMessage } from '../../../src/core/types.js';
import { type Db, openDb } from '../../../src/store/sqlite/db.js';
import { insertInbound, markFinished, markRunning } from '../../../src/store/sqlite/inbox.js';
import { scheduleMigration } from '../../../src/store/sqlite/job-states.js';
import { enqueueOutbound, markFailed, nextPending } from '../../../src/store/sqlite/outbox.js';
import { QUEUE_MIGRATIONS } from '../../../src/store/sqlite/queue-schema.js';
import { recordRun, runsMigration } from '../../../src/store/sqlite/runs.js';
import { saveSession } from '../../../src/store/sqlite/sessions.js';
import { whatsappMigration } from '../../../src/store/sqlite/whatsapp-auth.js';
import { tempDir } from '../../helpers/tmp.js';

export const ALL_MIGRATIONS = [...QUEUE_MIGRATIONS, whatsappMigration, scheduleMigration, runsMigration];
export const T = Date.UTC(2026, 0, 15, 12, 0, 0);
export const ALICE = '+15551234567';
export const BOB = '+15559876543';

let n = 0;
const msg = (chatId: string, text = 'hello'): InboundMessage => ({
  channel: 'whatsapp',
  chatId,
  senderId: chatId,
  messageId: `m${++n}`,
  text,
  media: [],
  isGroup: false,
  mentioned: false,
  at: T,
});

export function stateFolder(): string {
  const home = join(tempDir('aw-status-'), 'state');
  mkdirSync(home, { mode: 0o700 });
  return home;
}

/** Two waiting messages for Alice, one failed run for Bob (two messages), a failed delivery, sessions, runs. */
export function seed(db: Db): void {
  insertInbound(db, msg(ALICE), { now: T });
  insertInbound(db, msg(ALICE), { now: T + 1 });
  const b1 = insertInbound(db, msg(BOB, 'secret plans'), { now: T });
  const b2 = insertInbound(db, msg(BOB, 'more plans'), { now: T });
  const ids = [b1, b2].map((r) => (r.type === 'inserted' ? r.id : 0));
  markRunning(db, ids, T + 10);
  markFinished(db, ids, 'failed', T + 610_000, 'timeout');
  enqueueOutbound(db, `whatsapp:${BOB}`, 'in:99', [{ type: 'text', text: 'reply body' }], T + 20);
  const row = nextPending(db, `whatsapp:${BOB}`);
  if (row) markFailed(db, row.id, `recipient ${BOB} is not on WhatsApp`);
  saveSession(db, `whatsapp:${ALICE}`, 'claude', 'sess-1', T + 5);
  saveSession(db, '*', 'codex', 'sess-2', T + 6);
  recordRun(db, {
    chat: `whatsapp:${ALICE}`,
    agent: 'claude',
    label: 'user',
    startedAt: T,
    durationMs: 4200,
    outcome: 'ok',
  });
  recordRun(db, {
    chat: `whatsapp:${BOB}`,
    agent: 'claude',
    label: 'user',
    startedAt: T + 10,
    durationMs: 610_000,
    outcome: 'timeout',
    error: 'the agent ran past its time limit',
  });
  recordRun(db, {
    chat: `whatsapp:${ALICE}`,
    agent: 'claude',
    label: 'heartbeat',
    startedAt: T + 700_000,
    durationMs: 1000,
    outcome: 'auth',
    error: 'not logged in',
  });
}

export function seededStore(home: string): Db {
  const db = openDb(join(home, 'agentwire.db'), ALL_MIGRATIONS);
  seed(db);
  return db;
}
