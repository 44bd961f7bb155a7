// The `trigger` method of the relay's control socket (`agentwire trigger <chat> -m TEXT`): the same
// event a file would be, checked by the same schema, stored before the caller is answered.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { EventStore } from '../store/events.js';
import { checkEvent, type ResolveChat } from './event-file.js';
import { storedEvent } from './folder.js';

export const TRIGGER_METHOD = 'trigger';

export type TriggerResult =
  | { type: 'stored'; event: number; chat: string; dueAt: number }
  | { type: 'invalid'; message: string };

const envelope = z.object({ event: z.unknown() }).strict();

export function triggerMethod(d: {
  store: Pick<EventStore, 'addAll'>;
  resolve: ResolveChat;
  knownAgent: (kind: string) => boolean;
  now: () => number;
  stored: () => void;
}): (params: unknown) => Promise<TriggerResult> {
  return async (raw) => {
    const p = envelope.safeParse(raw ?? {});
    if (!p.success) return { type: 'invalid', message: 'expected {event: {...}}' };
    const now = d.now();
    const c = checkEvent(p.data.event, d.resolve, d.knownAgent, now);
    if (!c.ok) return { type: 'invalid', message: c.error };
    const [r] = await d.store.addAll(
      [
        {
          ...storedEvent('trigger', c.event, 'trigger', 'agentwire trigger'),
          key: `trigger:${randomUUID()}`,
        },
      ],
      now,
    );
    if (!r) throw new Error('the store answered no result');
    d.stored();
    return { type: 'stored', event: r.id, chat: c.event.chat, dueAt: c.event.dueAt };
  };
}
