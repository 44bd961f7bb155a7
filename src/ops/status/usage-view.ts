// Usage for `status`: the store's per-day, per-label run rows grouped into days with their totals.
import type { DailyUsage } from '../../store/contract/runs.js';

/** A day's (or one label's) sums, as the store keeps them (store/contract/runs.ts `DailyUsage`). */
export type UsageSums = Omit<DailyUsage, 'day' | 'label'>;

/** One local day (in the relay's time zone): the total, and per label (`user`, `heartbeat`, `schedule:<id>`). */
export interface UsageDayView extends UsageSums {
  day: string;
  byLabel: (UsageSums & { label: string })[];
}

/** Groups the store's (day, label) rows into days with their totals, newest day first. */
export function usageDays(rows: readonly DailyUsage[]): UsageDayView[] {
  const days = new Map<string, UsageDayView>();
  for (const r of rows) {
    let d = days.get(r.day);
    if (!d) {
      d = { day: r.day, ...zero(), byLabel: [] };
      days.set(r.day, d);
    }
    const { day: _day, label, ...sums } = r;
    d.byLabel.push({ label, ...sums });
    d.runs += r.runs;
    d.runsWithUsage += r.runsWithUsage;
    d.inputTokens += r.inputTokens;
    d.outputTokens += r.outputTokens;
    d.costUsd += r.costUsd;
    d.runsWithCost += r.runsWithCost;
  }
  return [...days.values()].sort((a, b) => (a.day < b.day ? 1 : a.day > b.day ? -1 : 0));
}

const zero = (): UsageSums => ({
  runs: 0,
  runsWithUsage: 0,
  inputTokens: 0,
  outputTokens: 0,
  costUsd: 0,
  runsWithCost: 0,
});
