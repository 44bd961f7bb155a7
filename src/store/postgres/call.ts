// One server-side function call as a whole operation (postgres/functions.ts): one round trip, its own
// transaction. In call order with this process's other operations under the same locks (as inTx);
// a deadlock or serialisation failure calls again; the function's fence refusal becomes the
// FenceConflict the TypeScript check (postgres/fence.ts) would have thrown.
import type { QueryResultRow } from 'pg';
import { type Fence, FenceConflict } from '../ownership.js';
import { FENCE_REFUSED } from './errors.js';
import { ATTEMPTS, inOrder, type Pool, RETRIED } from './pool.js';

/**
 * `err` as a FenceConflict of `fence` when the function refused it; otherwise `err`. With several
 * fences, DETAIL's `fence` (from 1) names the one refused.
 */
export function fenceError(err: unknown, fence: Fence | readonly Fence[] | undefined): unknown {
  const e = err as { code?: string; detail?: string };
  if (!fence || e.code !== FENCE_REFUSED) return err;
  let detail: { holder?: string | null; epoch?: number; fence?: number } | null = null;
  try {
    detail = JSON.parse(e.detail ?? 'null');
  } catch {
    detail = null;
  }
  const fences: readonly Fence[] = Array.isArray(fence) ? fence : [fence as Fence];
  const refused = fences[(detail?.fence ?? 1) - 1] ?? fences[0];
  if (!refused) return err;
  const lease =
    detail && typeof detail.epoch === 'number'
      ? { holder: detail.holder ?? null, epoch: detail.epoch }
      : undefined;
  return new FenceConflict(refused, lease);
}

/** Sends `sql` once (again after a deadlock); its rows. Not in call order: see `call`. */
export async function callNow<T extends QueryResultRow>(
  pool: Pool,
  sql: string,
  params: unknown[],
  fence?: Fence | readonly Fence[],
): Promise<T[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return (await pool.query<T>(sql, params)).rows;
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (attempt < ATTEMPTS && code && RETRIED.has(code)) continue;
      throw fenceError(err, fence);
    }
  }
}

/** `callNow` in call order with this pool's other operations under `locks`. */
export function call<T extends QueryResultRow>(
  pool: Pool,
  locks: readonly string[],
  sql: string,
  params: unknown[],
  fence?: Fence | readonly Fence[],
): Promise<T[]> {
  return inOrder(pool, locks, () => callNow<T>(pool, sql, params, fence));
}
