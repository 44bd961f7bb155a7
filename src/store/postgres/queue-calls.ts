// The chat writes that were each a transaction (BEGIN with the locks, the statements, COMMIT) as one
// call of their server-side function (postgres/functions-writes.ts): the same locks, in call order
// with this process's other operations under them (postgres/call.ts), and the same fence check, its
// refusal read back as the same FenceConflict.
import type { ChatKey, OutboxItem } from '../../core/types.js';
import { localDay, type RunRecord } from '../contract/runs.js';
import type { Fence } from '../ownership.js';
import type { KeptSession, RecoveryWrite } from '../queue-ops.js';
import { call } from './call.js';
import { escapeOpt } from './nul.js';
import { outboxItems } from './outbox.js';
import { chatLock, lockKey, type Pool, scopeLock } from './pool.js';

/** Run history kept (store/sqlite/runs.ts keeps the same). */
const KEEP_RUNS = 500;

/** requeueRun: the fence, the running messages waiting again (the try not counted), the session. */
export async function requeueRun(
  pool: Pool,
  ids: readonly number[],
  now: number,
  session: KeptSession | undefined,
  fence: Fence | undefined,
): Promise<void> {
  const locks = [...(fence ? [chatLock(fence.chat)] : []), ...(session ? [scopeLock(session.scope)] : [])];
  await call(
    pool,
    locks,
    'SELECT aw_requeue_run($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)',
    [
      fence ? lockKey(chatLock(fence.chat)) : null,
      session ? lockKey(scopeLock(session.scope)) : null,
      fence?.chat ?? null,
      fence?.holder ?? null,
      fence?.epoch ?? null,
      ids,
      now,
      session?.scope ?? null,
      session?.agent ?? null,
      session?.id ?? null,
      session?.generation ?? null,
      session?.confirmed ?? null,
      session?.touch ?? null,
    ],
    fence,
  );
}

/**
 * A reply to `chat` under its lock, fenced by `fence`, which must be a lease of `fenceOf` (the chat
 * itself for a run's reply, the writer's own chat for a write to another); how many items were new.
 */
export async function enqueueReply(
  pool: Pool,
  chat: ChatKey,
  key: string,
  items: readonly OutboxItem[],
  now: number,
  fence: Fence | undefined,
  fenceOf: string | undefined,
): Promise<number> {
  const [r] = await call<{ n: number }>(
    pool,
    [chatLock(chat)],
    'SELECT aw_enqueue_reply($1, $2, $3, $4, $5, $6, $7, $8, $9) AS n',
    [
      lockKey(chatLock(chat)),
      chat,
      key,
      outboxItems(items),
      now,
      fence?.chat ?? null,
      fenceOf ?? null,
      fence?.holder ?? null,
      fence?.epoch ?? null,
    ],
    fence,
  );
  return r?.n ?? 0;
}

/** A run's history row, the history pruned, the day's usage sums: one call, no lock. */
export async function recordRun(pool: Pool, r: RunRecord): Promise<void> {
  const u = r.usage;
  await call(pool, [], 'SELECT aw_record_run($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)', [
    r.chat,
    r.agent,
    r.label,
    r.startedAt,
    Math.round(r.durationMs),
    r.outcome,
    escapeOpt(r.error),
    u?.inputTokens ?? null,
    u?.outputTokens ?? null,
    u?.costUsd ?? null,
    KEEP_RUNS,
    r.day ?? localDay(r.startedAt + r.durationMs),
  ]);
}

/** recover: the failing chats' locks (sorted by name), every fence, the requeue, each chat's failure and notice. */
export async function recover(pool: Pool, plan: RecoveryWrite): Promise<void> {
  const names = [...new Set([...plan.fail.keys()].map(chatLock))].sort();
  const fences = plan.fences ?? [];
  const failed = [...plan.fail].flatMap(([chat, ids]) => ids.map((id) => [chat, id] as const));
  await call(
    pool,
    names,
    'SELECT aw_recover($1, $2, $3, $4, $5, $6, $7, $8, $9)',
    [
      names.map(lockKey),
      fences.map((f) => f.chat),
      fences.map((f) => f.holder),
      fences.map((f) => f.epoch),
      plan.requeue,
      failed.map(([chat]) => chat),
      failed.map(([, id]) => id),
      outboxItems(plan.notice),
      plan.now,
    ],
    fences,
  );
}
