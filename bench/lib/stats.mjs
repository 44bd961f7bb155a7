import { readFileSync } from 'node:fs';

// Small statistics for benches: order statistics over samples, never means (one stall skews a mean).

export function median(xs) {
  return quantile(xs, 0.5);
}

/** The q-quantile by linear interpolation between the closest ranks (q in [0, 1]). */
export function quantile(xs, q) {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
}

export const p99 = (xs) => quantile(xs, 0.99);

export const range = (xs) => `${Math.min(...xs).toFixed(3)}-${Math.max(...xs).toFixed(3)}`;

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` every `every` ms until it is true; throws after `ms`. */
export async function until(check, what, ms = 30_000, every = 5) {
  const end = performance.now() + ms;
  while (!check()) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(every);
  }
}

/**
 * CPU used by this process's children that have been waited for (cutime + cstime), in ms, from
 * /proc/self/stat (Linux; USER_HZ is 100). The delta over a batch of bare spawns is their CPU.
 */
export function childrenCpuMs() {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[13]) + Number(f[14])) * 10;
}
