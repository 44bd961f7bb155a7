// Retention on PostgreSQL (the rules of store/retention.ts): finished messages lose their text after
// `messageDays`, sent or failed replies and closed questions go then, and the bare dedupe record
// stays at least KEEP_IDS_DAYS. One transaction. PostgreSQL has no secure delete: the old row
// versions stay in the table's pages until (auto)vacuum reclaims them.
import { KEEP_IDS_DAYS, type RetentionResult } from '../retention.js';
import { inTx, type Pool } from './pool.js';

const DAY_MS = 86_400_000;
const FINISHED = `status IN ('done', 'failed', 'dropped')`;

export function pgPruneOldMessages(pool: Pool, now: number, messageDays: number): Promise<RetentionResult> {
  const textCutoff = now - messageDays * DAY_MS;
  const idCutoff = now - Math.max(messageDays, KEEP_IDS_DAYS) * DAY_MS;
  return inTx(pool, [], async (c) => {
    const n = async (sql: string, cutoff: number) => (await c.query(sql, [cutoff])).rowCount ?? 0;
    return {
      scrubbed: await n(
        `UPDATE inbox SET text = '', media = '[]', context = NULL, sender_name = NULL, remote_media = NULL
         WHERE ${FINISHED} AND coalesce(finished_at, received_at) < $1
           AND (text <> '' OR media <> '[]' OR context IS NOT NULL OR sender_name IS NOT NULL
             OR remote_media IS NOT NULL)`,
        textCutoff,
      ),
      replies: await n(
        `DELETE FROM outbox WHERE status IN ('sent', 'failed') AND coalesce(sent_at, created_at) < $1`,
        textCutoff,
      ),
      deleted: await n(
        `DELETE FROM inbox WHERE ${FINISHED} AND coalesce(finished_at, received_at) < $1`,
        idCutoff,
      ),
      seen: await n('DELETE FROM channel_seen WHERE at < $1', idCutoff),
      questions: await n(`DELETE FROM interactions WHERE status <> 'pending' AND closed_at < $1`, textCutoff),
    };
  });
}
