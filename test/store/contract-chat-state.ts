// The store contract, continued: a channel's own state, Twilio's, events from outside, the tasks agents schedule, staged media links
// and alert incidents, over the ports only (run by storeContract in test/store/contract-suite.ts, every engine).
import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/open.js';
import type { CommandSnapshot } from '../../src/store/queue-ops.js';
import { inbound } from './helpers.js';

const CHAT = 'console:local' as const;
const NOW = 1_700_000_000_000;
const task = (prompt: string) => ({ chat: CHAT, prompt, every: '1h' });

export function chatStateContract(fresh: () => Promise<Store>): void {
  describe('channel state, Twilio, events, tasks, media links and incidents', () => {
    it("a channel's keys are its own; a value round-trips as JSON; a seen key is seen once", async () => {
      const s = await fresh();
      const tg = s.channelState('telegram');
      const wa = s.channelState('whatsapp');
      await tg.set('offset', { update: 41, nested: [1, 'two', null] });
      expect(await tg.get('offset')).toEqual({ update: 41, nested: [1, 'two', null] });
      expect(await wa.get('offset')).toBeUndefined();
      await tg.set('offset', 42);
      expect(await tg.get('offset')).toBe(42);
      await tg.set('offset', undefined);
      expect(await tg.get('offset')).toBeUndefined();
      const first = await Promise.all([tg.seen('u1'), tg.seen('u1')]);
      expect(first.sort()).toEqual([false, true]);
      expect(await wa.seen('u1')).toBe(false);
    });

    it('a task is added once per call key, up to a cap per chat, and paused, changed and cancelled in place', async () => {
      const s = await fresh();
      const a = await s.tasks.add(task('water the plants'), 'run1:0', 2, NOW);
      if (a.type !== 'added') throw new Error(a.type);
      expect(await s.tasks.add(task('water the plants'), 'run1:0', 2, NOW)).toEqual({
        type: 'existing',
        task: a.task,
      });
      const capped = await Promise.all([
        s.tasks.add(task('b'), 'run2:0', 2, NOW + 1),
        s.tasks.add(task('c'), 'run2:1', 2, NOW + 2),
      ]);
      expect(capped.map((r) => r.type).sort()).toEqual(['added', 'full']);
      expect(await s.tasks.setPaused(CHAT, a.task.id, NOW + 5)).toMatchObject({
        id: a.task.id,
        pausedAt: NOW + 5,
      });
      const changed = await s.tasks.update(CHAT, a.task.id, {
        prompt: 'water the ferns',
        timing: { cron: '0 9 * * *' },
      });
      expect(changed).toEqual({
        ...a.task,
        prompt: 'water the ferns',
        cron: '0 9 * * *',
        every: undefined,
        pausedAt: NOW + 5,
      });
      expect(await s.tasks.setPaused(CHAT, a.task.id, undefined)).not.toHaveProperty('pausedAt');
      expect(await s.tasks.update('console:other', a.task.id, { prompt: 'x' })).toBeUndefined();
      expect((await s.tasks.list(CHAT)).map((t) => t.id)[0]).toBe(a.task.id);
      expect(await s.tasks.cancel('console:other', a.task.id)).toBe(false);
      expect(await s.tasks.cancel(CHAT, a.task.id)).toBe(true);
      expect(await s.tasks.all()).toHaveLength(1);
    });

    it("twilio: a status moves as `next` says, under the row's lock; refusals once a day; poll ids once", async () => {
      const s = await fresh();
      const order = ['queued', 'sent', 'delivered', 'read'];
      const forward = (stored: string, incoming: string) =>
        order.indexOf(incoming) > order.indexOf(stored) ? incoming : stored;
      await s.twilio.saveTwilioSend('SM1', '+15550001', 'queued', NOW);
      await s.twilio.saveTwilioSend('SM1', '+15550002', 'sent', NOW + 1);
      const raced = await Promise.all([
        s.twilio.recordStatus('SM1', 'delivered', undefined, NOW + 2, forward),
        s.twilio.recordStatus('SM1', 'sent', '30003', NOW + 3, forward),
      ]);
      expect(raced).toContain('delivered');
      expect(await s.twilio.recordStatus('SM-unknown', 'sent', undefined, NOW, forward)).toBeUndefined();
      expect(await s.twilio.delivery('SM1')).toMatchObject({
        sid: 'SM1',
        chatId: '+15550001',
        status: 'delivered',
      });
      await s.twilio.block('+15550001', '21610', NOW);
      expect(await s.twilio.blocked('+15550001')).toBe('21610');
      await s.twilio.unblock('+15550001');
      expect(await s.twilio.blocked('+15550001')).toBeUndefined();
      expect(await s.twilio.claimRefusal('+1555', NOW)).toBe(true);
      expect(await s.twilio.claimRefusal('+1555', NOW + 10)).toBe(false);
      expect(await s.twilio.claimRefusal('+1555', NOW + 10 + 86_400_000)).toBe(true);
      expect(await s.twilio.markPollSeen('SMa', NOW)).toBe(true);
      expect(await s.twilio.markPollSeen('SMa', NOW + 1)).toBe(false);
      await s.twilio.setState('cursor', 'a');
      await s.twilio.setState('cursor', 'b');
      expect(await s.twilio.getState('cursor')).toBe('b');
      await s.twilio.prune(NOW + 15 * 86_400_000);
      expect(await s.twilio.pollSeen('SMa')).toBe(false);
      expect(await s.twilio.delivery('SM1')).toMatchObject({ status: 'delivered' });
    });

    it('events from outside: stored once per key, run by due time, then name (bytewise), then arrival', async () => {
      const s = await fresh();
      const ev = (key: string, orderName: string, dueAt: number) => ({
        key,
        source: 'file:x',
        chat: CHAT,
        prompt: `p ${key}`,
        dueAt,
        orderName,
        options: '{"quiet":true}',
      });
      const added = await s.events.addAll(
        [ev('k1', 'b', NOW), ev('k2', 'B', NOW), ev('k3', 'a', NOW + 1)],
        NOW,
      );
      expect(added.map((a) => a.type)).toEqual(['added', 'added', 'added']);
      const again = await s.events.addAll([ev('k1', 'b', NOW), ev('k4', 'c', NOW)], NOW);
      expect(again).toEqual([
        { type: 'duplicate', id: added[0]?.id },
        expect.objectContaining({ type: 'added' }),
      ]);
      expect((await s.events.open()).map((e) => e.orderName)).toEqual(['B', 'b', 'c', 'a']);
      expect((await s.events.dueFor(CHAT, NOW, 2)).map((e) => e.orderName)).toEqual(['B', 'b']);
      const id = added[0]?.id ?? 0;
      const waiting = { state: 'waiting', attempts: 0 } as const;
      expect(await s.events.begin(id, waiting)).toMatchObject({
        state: 'running',
        attempts: 1,
        options: '{"quiet":true}',
      });
      // A begin against a row read before that one's begin claims nothing.
      expect(await s.events.begin(id, waiting)).toBeUndefined();
      // A release counts from the begin it undoes: an older one's changes nothing.
      await s.events.release(id, 0);
      expect(await s.events.get(id)).toMatchObject({ state: 'running', attempts: 1 });
      await s.events.release(id, 1);
      expect(await s.events.get(id)).toMatchObject({ state: 'waiting', attempts: 0 });
      expect(await s.events.begin(id, waiting)).toMatchObject({ state: 'running', attempts: 1 });
      // A row cut off as running is begun again against that read, and counts the attempt.
      expect(await s.events.begin(id, { state: 'running', attempts: 1 })).toMatchObject({ attempts: 2 });
      await s.events.finish(id, 'ok', NOW + 10);
      expect(await s.events.begin(id, { state: 'running', attempts: 2 })).toBeUndefined();
      expect(await s.events.get(id)).toMatchObject({ state: 'done', attempts: 2, outcome: 'ok' });
      expect(await s.events.prune(NOW + 10)).toBe(0);
      expect(await s.events.prune(NOW + 11)).toBe(1);
      expect(await s.events.get(id)).toBeUndefined();
    });

    it('media links and alert incidents round-trip, and expire or clear', async () => {
      const s = await fresh();
      await s.mediaLinks.add('a.pdf', { mimeType: 'application/pdf', sizeBytes: 8, expiresAt: NOW });
      await s.mediaLinks.add('b.png', {
        mimeType: 'image/png',
        sizeBytes: 3_000_000_000,
        expiresAt: NOW + 1,
      });
      expect(await s.mediaLinks.get('b.png')).toEqual({
        mimeType: 'image/png',
        sizeBytes: 3_000_000_000,
        expiresAt: NOW + 1,
      });
      expect(await s.mediaLinks.expired(NOW)).toEqual(['a.pdf']);
      await s.mediaLinks.remove('a.pdf');
      expect(await s.mediaLinks.get('a.pdf')).toBeUndefined();
      await s.incidents.put('whatsapp', { kind: 'degraded', since: NOW });
      await s.incidents.put('whatsapp', { kind: 'down', since: NOW, alertedAt: NOW + 5 });
      expect(await s.incidents.get('whatsapp')).toEqual({ kind: 'down', since: NOW, alertedAt: NOW + 5 });
      expect(await s.incidents.get('telegram')).toBeUndefined();
      await s.incidents.clear('whatsapp');
      expect(await s.incidents.get('whatsapp')).toBeUndefined();
    });

    it("a chat command sees the chat's tasks and can cancel one in its transaction", async () => {
      const s = await fresh();
      const a = await s.tasks.add(task('stretch'), 'run:0', 5, NOW);
      if (a.type !== 'added') throw new Error(a.type);
      let seen: CommandSnapshot | undefined;
      const out = await s.queue.acceptCommand(
        inbound({ messageId: 'c', text: '/tasks cancel' }),
        {
          now: NOW,
          scope: CHAT,
          defaultAgent: 'claude',
          note: 'tasks',
          items: (t) => [{ type: 'text', text: t }],
        },
        (state) => {
          seen = state;
          return { reply: 'Cancelled.', effects: [{ type: 'cancel_task', id: a.task.id }] };
        },
      );
      expect(out).toMatchObject({ ok: true, value: { type: 'applied' } });
      expect(seen?.tasks).toMatchObject([{ id: a.task.id, prompt: 'stretch', every: '1h' }]);
      expect(seen?.tasks[0]?.cron).toBeUndefined();
      expect(seen).toMatchObject({ waiting: 0, pending: [], allowances: [], session: undefined });
      expect(await s.tasks.list(CHAT)).toEqual([]);
    });
  });
}
