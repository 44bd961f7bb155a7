// What the warm-driver tests share: whether a process still runs, a bounded wait for a condition
// (never a fixed sleep), and a driver's session opened or the test failed with why.
import type { SessionDriver } from '../../src/drivers/types.js';

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls `ok` every 20 ms; throws once `ms` have passed without it. */
export async function waitFor(ok: () => boolean, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Opens a new session (with `id` where the CLI takes one from us); throws with the reason if it fails. */
export async function opened(d: SessionDriver, id?: string): Promise<string> {
  const o = await d.open(id ? { type: 'new', id } : { type: 'new' });
  if (o.type !== 'ok') throw new Error(`open failed: ${o.message} ${o.detail ?? ''}`);
  return o.sessionId;
}
