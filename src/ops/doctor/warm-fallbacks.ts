// The CLIs that run cold because a warm start failed and the relay remembered it (warm-memory.ts):
// doctor says which, why, and how to try warm again. Read from the store, read-only.
import { WARM_STATE } from '../../drivers/warm-memory.js';
import { scrub } from '../../log.js';
import type { StoreAdmin } from '../../store/admin.js';
import { type Finding, warn } from './types.js';

export async function checkWarmFallbacks(store: Pick<StoreAdmin, 'channelValue'>): Promise<Finding[]> {
  const raw = await store.channelValue(WARM_STATE.channel, WARM_STATE.key);
  return Object.entries(warmFallbacks(raw)).map(([kind, reason]) =>
    warn(
      `warm:${kind}`,
      `${kind} runs cold: its warm start failed${reason ? ` (${scrub(reason).slice(0, 200)})` : ''}, remembered until its command or CLI changes`,
      `fix the cause, then \`agentwire agent warm-reset ${kind}\` to try it live again`,
    ),
  );
}

/** The remembered failures as stored (JSON, kind → {reason}), kind → reason; empty when unreadable. */
export function warmFallbacks(raw: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  try {
    const all = raw ? (JSON.parse(raw) as Record<string, { reason?: unknown }>) : {};
    for (const [kind, r] of Object.entries(all)) out[kind] = typeof r?.reason === 'string' ? r.reason : '';
  } catch {
    // A value this version cannot read: nothing to show.
  }
  return out;
}
