// How long message text stays on disk. A relay runs for months; without this the store would keep
// every message and reply ever exchanged, in the clear. Finished messages lose their text, media
// and sender name after `messageDays`, and sent or failed replies are deleted then; the bare inbox
// row (channel, message id, status) stays longer, because it is what stops a redelivered message
// (a Twilio retry, a WhatsApp resync after days offline) from running a second time. Rows still
// pending or running are never touched: they are work the relay owes.

import { KEEP_IDS_DAYS, type RetentionResult } from '../retention.js';
import { type Db, transaction } from './db.js';

export { KEEP_IDS_DAYS, type RetentionResult } from '../retention.js';

const DAY_MS = 86_400_000;

const FINISHED = `status IN ('done', 'failed', 'dropped')`;

export function pruneStore(db: Db, now: number, messageDays: number): RetentionResult {
  const textCutoff = now - messageDays * DAY_MS;
  const idCutoff = now - Math.max(messageDays, KEEP_IDS_DAYS) * DAY_MS;
  // Cleared text must not linger in freed pages of the database file.
  db.exec('PRAGMA secure_delete = ON');
  try {
    return prune(db, textCutoff, idCutoff);
  } finally {
    db.exec('PRAGMA secure_delete = OFF');
  }
}

function prune(db: Db, textCutoff: number, idCutoff: number): RetentionResult {
  return transaction(db, () => ({
    scrubbed: Number(
      db
        .prepare(
          `UPDATE inbox SET text = '', media = '[]', context = NULL, sender_name = NULL, remote_media = NULL
           WHERE ${FINISHED} AND coalesce(finished_at, received_at) < ?
             AND (text != '' OR media != '[]' OR context IS NOT NULL OR sender_name IS NOT NULL
               OR remote_media IS NOT NULL)`,
        )
        .run(textCutoff).changes,
    ),
    replies: Number(
      db
        .prepare(
          `DELETE FROM outbox WHERE status IN ('sent', 'failed') AND coalesce(sent_at, created_at) < ?`,
        )
        .run(textCutoff).changes,
    ),
    deleted: Number(
      db
        .prepare(`DELETE FROM inbox WHERE ${FINISHED} AND coalesce(finished_at, received_at) < ?`)
        .run(idCutoff).changes,
    ),
    // The ids channel plug-ins recorded as seen (ChannelDeps.state) are dedupe records too: kept as
    // long as the inbox's, then dropped, so they do not grow for the life of the relay.
    seen: Number(db.prepare('DELETE FROM channel_seen WHERE at < ?').run(idCutoff).changes),
    // A closed question holds the agent's words and the person's answer: message text like any other.
    questions: Number(
      db.prepare(`DELETE FROM interactions WHERE status != 'pending' AND closed_at < ?`).run(textCutoff)
        .changes,
    ),
  }));
}
