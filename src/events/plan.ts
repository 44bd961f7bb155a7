// Which stored events run now, pure. Events run one at a time per chat, in the stored order (due
// time, then file name, then arrival); chats run side by side under the queue's own limits. An
// event that asked for active hours waits outside them without holding up the chat's other events.
import type { StoredEvent } from '../store/events.js';
import type { EventOptions } from './event-file.js';

/** A row cut off twice by a crash is given up rather than tried forever (as a one-shot schedule is). */
export const MAX_EVENT_ATTEMPTS = 2;

export function eventOptions(e: Pick<StoredEvent, 'options'>): EventOptions {
  try {
    const o = JSON.parse(e.options) as EventOptions;
    return o && typeof o === 'object' ? o : {};
  } catch {
    return {};
  }
}

export interface Plan {
  /** The next event of each chat that may start now. */
  start: StoredEvent[];
  /** The earliest due time still ahead (to wake then); undefined when nothing waits for a time. */
  wakeAt?: number;
}

export function planEvents(
  open: readonly StoredEvent[],
  now: number,
  working: ReadonlySet<string>,
  inActiveHours: boolean,
): Plan {
  const start: StoredEvent[] = [];
  const taken = new Set<string>(working);
  let wakeAt: number | undefined;
  for (const e of open) {
    if (e.dueAt > now) {
      if (wakeAt === undefined || e.dueAt < wakeAt) wakeAt = e.dueAt;
      continue;
    }
    if (taken.has(e.chat)) continue;
    if (eventOptions(e).activeHours && !inActiveHours) continue;
    taken.add(e.chat);
    start.push(e);
  }
  return { start, ...(wakeAt !== undefined && { wakeAt }) };
}
