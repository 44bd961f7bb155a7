// Interval strings for `every:` ("15m", "2h", "1d"). One number and one unit: combinations like
// "1h30m" are refused rather than half-read, and very short intervals are refused because each
// tick may wake an agent (a pre-check makes polling cheap, but one minute is fine-grained enough).

export const MIN_INTERVAL_MS = 60_000;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
// setTimeout cannot wait longer than 2^31-1 ms; intervals are capped well below the point where
// arithmetic on them could lose precision, at one year.
const MAX_INTERVAL_MS = 365 * UNIT_MS.d;

export type IntervalParse = { ok: true; ms: number } | { ok: false; error: string };

export function parseInterval(text: string): IntervalParse {
  const m = /^\s*(\d+)\s*([smhd])\s*$/i.exec(text);
  if (!m) return { ok: false, error: `"${text}" is not an interval like "15m", "2h" or "1d"` };
  const unit = (m[2] as string).toLowerCase() as keyof typeof UNIT_MS;
  const ms = Number(m[1]) * UNIT_MS[unit];
  if (ms < MIN_INTERVAL_MS) return { ok: false, error: `"${text}" is shorter than the minimum of 1m` };
  if (ms > MAX_INTERVAL_MS) return { ok: false, error: `"${text}" is longer than the maximum of 365d` };
  return { ok: true, ms };
}

/** "1 h 5 min", "3 min", "45 s": for lateness notes and the schedules listing. */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const d = Math.floor(total / 86_400);
  const h = Math.floor((total % 86_400) / 3600);
  const min = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const parts: string[] = [];
  if (d) parts.push(`${d} d`);
  if (h) parts.push(`${h} h`);
  if (min && !d) parts.push(`${min} min`);
  if (parts.length === 0) parts.push(`${s} s`);
  return parts.join(' ');
}
