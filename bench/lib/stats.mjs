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

// USER_HZ is 100 on every Linux build Node supports (getconf CLK_TCK).
const CLK_TCK = 100;

/**
 * CPU a process has used so far, in ms, from /proc/<pid>/stat (Linux): its own (utime + stime), or
 * with `children` that of its children it has waited for (cutime + cstime).
 */
export function procCpuMs(pid = 'self', { children = false } = {}) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The fields after the command name, from the state: utime and stime are 11 and 12, cutime and
  // cstime 13 and 14 (fields 14–17 of proc(5)).
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const [a, b] = children ? [f[13], f[14]] : [f[11], f[12]];
  return ((Number(a) + Number(b)) * 1000) / CLK_TCK;
}

/** CPU used by this process's children that have been waited for: the delta over a batch of bare spawns is their CPU. */
export const childrenCpuMs = () => procCpuMs('self', { children: true });
