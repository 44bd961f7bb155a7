// Pure: whether a task an agent asked for may be scheduled. An agent is untrusted input here: a
// cron that fires every minute or a flood of one-shots would wake it (and spend the owner's money)
// without anyone asking, so the shortest interval and the count per chat are config limits.
import { describeTiming, nextOccurrence, parseTiming, type TimingFields } from '../core/timing.js';

export interface TaskRequest extends TimingFields {
  prompt: string;
}

export type TaskCheck =
  | { ok: true; fields: TimingFields; timing: string; firstAt: number }
  | { ok: false; error: string };

/** Occurrences of a cron looked at for its shortest gap (a day of "every 5 minutes" is 288). */
const CRON_SAMPLES = 50;

export function checkTask(t: TaskRequest, minIntervalMs: number, now: number): TaskCheck {
  const given = (['cron', 'every', 'at'] as const).filter((k) => t[k] !== undefined);
  if (given.length !== 1)
    return {
      ok: false,
      error: `give exactly one of cron, every or at (got ${given.length ? given.join(', ') : 'none'})`,
    };
  if (!t.prompt.trim()) return { ok: false, error: 'prompt is empty' };
  const fields: TimingFields = {
    ...(t.cron !== undefined && { cron: t.cron }),
    ...(t.every !== undefined && { every: t.every }),
    ...(t.at !== undefined && { at: t.at }),
    ...(t.timeZone !== undefined && { timeZone: t.timeZone }),
  };
  const parsed = parseTiming(fields);
  if (!parsed.ok) return { ok: false, error: `${parsed.key}: ${parsed.error}` };
  const timing = parsed.timing;
  const min = `the shortest interval allowed is ${minIntervalMs / 60_000} minutes (tools.minTaskIntervalMinutes)`;
  switch (timing.type) {
    case 'every':
      if (timing.ms < minIntervalMs)
        return { ok: false, error: `every: "${timing.text}" is too short: ${min}` };
      return { ok: true, fields, timing: describeTiming(timing), firstAt: now + timing.ms };
    case 'at':
      if (timing.atMs <= now) return { ok: false, error: `at: "${timing.text}" is in the past` };
      return { ok: true, fields, timing: describeTiming(timing), firstAt: timing.atMs };
    case 'cron': {
      let prev = nextOccurrence(timing, now, now);
      const first = prev;
      for (let i = 0; i < CRON_SAMPLES && prev !== undefined; i++) {
        const next = nextOccurrence(timing, prev, prev);
        if (next === undefined) break;
        if (next - prev < minIntervalMs)
          return { ok: false, error: `cron: "${timing.expression}" fires too often: ${min}` };
        prev = next;
      }
      if (first === undefined) return { ok: false, error: `cron: "${timing.expression}" never fires` };
      return { ok: true, fields, timing: describeTiming(timing), firstAt: first };
    }
  }
}
