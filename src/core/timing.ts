// When a schedule fires: a cron expression (croner, 5 fields, in an IANA zone), a fixed interval,
// or a one-shot time. Parsed once from config; pure functions of instants after that.
import { Cron } from 'croner';
import { isValidTimeZone } from './hours.js';
import { parseInterval } from './interval.js';

export type Timing =
  | { type: 'cron'; cron: Cron; expression: string; timeZone?: string }
  | { type: 'every'; ms: number; text: string }
  | { type: 'at'; atMs: number; text: string; timeZone?: string };

export interface TimingFields {
  cron?: string;
  every?: string;
  at?: string;
  timeZone?: string;
}

export type TimingParse =
  | { ok: true; timing: Timing }
  | { ok: false; key: 'cron' | 'every' | 'at' | 'timeZone'; error: string };

// A local date-time ("2026-07-01T09:00", read in the schedule's zone) or an absolute one with Z or
// an offset. Anything looser is refused so "07/01" is never guessed at.
const AT_FORMAT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?$/;

export function parseTiming(f: TimingFields): TimingParse {
  if (f.timeZone !== undefined && !isValidTimeZone(f.timeZone))
    return { ok: false, key: 'timeZone', error: `unknown time zone "${f.timeZone}" (use an IANA name)` };
  const tz = f.timeZone ? { timezone: f.timeZone } : {};
  if (f.cron !== undefined) {
    try {
      // mode 5-part: minute precision. A seconds field would let one line wake the agent every second.
      const cron = new Cron(f.cron, { paused: true, mode: '5-part', ...tz });
      if (!cron.nextRun(new Date(0))) return { ok: false, key: 'cron', error: 'never fires' };
      return { ok: true, timing: { type: 'cron', cron, expression: f.cron, timeZone: f.timeZone } };
    } catch (err) {
      return { ok: false, key: 'cron', error: `invalid cron expression: ${(err as Error).message}` };
    }
  }
  if (f.every !== undefined) {
    const p = parseInterval(f.every);
    return p.ok ? { ok: true, timing: { type: 'every', ms: p.ms, text: f.every } } : { ...p, key: 'every' };
  }
  if (f.at !== undefined) {
    const bad = { ok: false, key: 'at', error: `"${f.at}" is not a time like 2026-07-01T09:00` } as const;
    if (!AT_FORMAT.test(f.at)) return bad;
    try {
      const at = new Cron(f.at, { paused: true, ...tz }).nextRun(new Date(0));
      if (!at) return bad;
      return { ok: true, timing: { type: 'at', atMs: at.getTime(), text: f.at, timeZone: f.timeZone } };
    } catch {
      return bad;
    }
  }
  return { ok: false, key: 'cron', error: 'exactly one of cron, every or at is required' };
}

/** Identifies the timing as configured: a changed schedule starts over with fresh state. */
export function fingerprint(f: TimingFields): string {
  return JSON.stringify([f.cron ?? null, f.every ?? null, f.at ?? null, f.timeZone ?? null]);
}

/**
 * The first occurrence strictly after `afterMs`. `anchorMs` is an occurrence of an interval (its
 * phase); undefined when there is none (a one-shot already past).
 */
export function nextOccurrence(t: Timing, afterMs: number, anchorMs: number): number | undefined {
  switch (t.type) {
    case 'cron':
      return t.cron.nextRun(new Date(afterMs))?.getTime();
    case 'every': {
      const k = Math.floor((afterMs - anchorMs) / t.ms) + 1;
      return anchorMs + k * t.ms;
    }
    case 'at':
      return t.atMs > afterMs ? t.atMs : undefined;
  }
}

/** The latest occurrence at or before `atMs` (same anchor rule as `nextOccurrence`). */
export function lastOccurrence(t: Timing, atMs: number, anchorMs: number): number | undefined {
  switch (t.type) {
    case 'cron':
      // previousRuns excludes a run at exactly the reference; one millisecond later includes it.
      return t.cron.previousRuns(1, new Date(atMs + 1))[0]?.getTime();
    case 'every':
      return anchorMs + Math.floor((atMs - anchorMs) / t.ms) * t.ms;
    case 'at':
      return t.atMs <= atMs ? t.atMs : undefined;
  }
}

/** "cron 0 8 * * 1-5 (Europe/Berlin)", "every 15m", "at 2026-07-01T09:00 (UTC)". */
export function describeTiming(t: Timing): string {
  switch (t.type) {
    case 'cron':
      return `cron ${t.expression}${t.timeZone ? ` (${t.timeZone})` : ''}`;
    case 'every':
      return `every ${t.text}`;
    case 'at':
      return `at ${t.text}${t.timeZone ? ` (${t.timeZone})` : ''}`;
  }
}
