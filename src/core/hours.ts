// Active hours: a daily window of local wall-clock time in an IANA zone, outside which heartbeats
// do not fire. Wall-clock time comes from Intl, so DST shifts move the window with the clock on the
// wall (08:00 stays 08:00 local on both sides of a change), and a window whose end is before its
// start spans midnight.
import { dateFormat } from './date-format.js';

export interface ActiveHours {
  /** HH:MM, inclusive. */
  start: string;
  /** HH:MM (24:00 allowed), exclusive; before `start` means the window spans midnight. */
  end: string;
  /** IANA zone; the machine's when absent. */
  timeZone?: string;
}

/**
 * True when `timeZone` is a zone name this Node knows (Intl throws RangeError otherwise). Bare
 * offsets like "+01:00" are refused although Intl takes them: they do not follow DST, so "+01:00"
 * for Berlin would be an hour off all summer.
 */
export function isValidTimeZone(timeZone: string): boolean {
  if (!timeZone.trim() || /^[+-]\d/.test(timeZone)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

/** Minutes since local midnight for "HH:MM" (24:00 → 1440); undefined when malformed. */
export function parseClock(hhmm: string): number | undefined {
  const m = /^(\d{2}):(\d{2})$/.exec(hhmm);
  if (!m) return undefined;
  const h = Number(m[1]);
  const min = Number(m[2]);
  if (min > 59 || h > 24 || (h === 24 && min !== 0)) return undefined;
  return h * 60 + min;
}

/** Local minutes since midnight of the instant `atMs` in `timeZone` (undefined: the machine's zone). */
export function localMinutes(atMs: number, timeZone?: string): number {
  const f = dateFormat('en-US', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  let hour = 0;
  let minute = 0;
  for (const p of f.formatToParts(new Date(atMs))) {
    if (p.type === 'hour') hour = Number(p.value);
    else if (p.type === 'minute') minute = Number(p.value);
  }
  return hour * 60 + minute;
}

/** Whether the instant `atMs` falls inside the window. Malformed windows count as never active. */
export function isWithinActiveHours(atMs: number, hours: ActiveHours): boolean {
  const start = parseClock(hours.start);
  const end = parseClock(hours.end);
  if (start === undefined || end === undefined || start === end) return false;
  const now = localMinutes(atMs, hours.timeZone);
  return start < end ? now >= start && now < end : now >= start || now < end;
}

/** A config problem with the window, or undefined when it is usable. */
export function activeHoursProblem(hours: ActiveHours): string | undefined {
  const start = parseClock(hours.start);
  const end = parseClock(hours.end);
  if (start === undefined) return 'start must be HH:MM';
  if (end === undefined) return 'end must be HH:MM';
  if (start === end) return 'start and end are the same, so the window is empty';
  if (hours.timeZone !== undefined && !isValidTimeZone(hours.timeZone))
    return `unknown time zone "${hours.timeZone}" (use an IANA name like Europe/Berlin)`;
  return undefined;
}

/**
 * The first of the ticks `fromMs`, `fromMs + stepMs`, … that falls inside the window (for showing
 * when a heartbeat will really fire); undefined when none does within `maxSteps`.
 */
export function firstActiveTick(
  fromMs: number,
  stepMs: number,
  hours: ActiveHours,
  maxSteps = 20_000,
): number | undefined {
  for (let i = 0, t = fromMs; i < maxSteps; i++, t += stepMs) if (isWithinActiveHours(t, hours)) return t;
  return undefined;
}
