// The store contract, continued: the queue's delivery, recovery and settings operations and the job
// states, over the ports only (run by storeContract in test/store/contract-suite.ts, every engine).
import { describe, expect, it } from 'vitest';
import { StoreError, type Written } from '../../src/store/errors.js';
import type { Store } from '../../src/store/open.js';
import { inbound } from './helpers.js';

const CHAT = 'console:local' as const;
const OTHER = 'console:other' as const;
const NOW = 1_700_000_000_000;
const text = (t: string) => [{ type: 'text' as const, text: t }];

async function got<T>(p: Promise<Written<T>>): Promise<T> {
  const w = await p;
  if (!w.ok) throw new StoreError(w);
  return w.value;
}

export function deliveryContract(fresh: () => Promise<Store>): void {
  describe('delivery and recovery', () => {
    it("a chat's chunks go out in the order written; attempts, retries and sends are recorded", async () => {
      const s = await fresh();
      await got(s.queue.enqueueReply(OTHER, 'o', text('first elsewhere'), NOW));
      await got(s.queue.enqueueReply(CHAT, 'k', [...text('one'), ...text('two')], NOW));
      expect(await got(s.queue.enqueueReply(CHAT, 'k', text('again'), NOW))).toBe(0);
      expect(await s.queue.countUnsent()).toBe(3);
      expect(await s.queue.chatsWithUnsent()).toEqual([OTHER, CHAT]);
      const first = await s.queue.nextUnsent(CHAT);
      expect(first).toMatchObject({
        key: 'k',
        idx: 0,
        item: { type: 'text', text: 'one' },
        status: 'pending',
      });
      const id = first?.id ?? 0;
      await got(s.queue.markChunkAttempt(id, NOW + 1));
      await got(s.queue.markChunkAttempt(id, NOW + 2));
      expect(await got(s.queue.markChunkRetry(id, 'timeout', NOW + 60_000))).toBe(1);
      expect(await got(s.queue.markChunkRetry(id, 'timeout', NOW + 120_000))).toBe(2);
      expect(await s.queue.nextUnsent(CHAT)).toMatchObject({
        id,
        attemptAt: NOW + 1,
        nextAt: NOW + 120_000,
        tries: 2,
      });
      await got(s.queue.markChunkSent(id, NOW + 3, 'SM1'));
      expect(await s.queue.sentProviderIds(CHAT, NOW + 3)).toEqual(['SM1']);
      expect(await s.queue.sentProviderIds(CHAT, NOW + 4)).toEqual([]);
      expect(await s.queue.nextUnsent(CHAT)).toMatchObject({ key: 'k', idx: 1 });
      expect(await s.repliesFor('k')).toEqual([
        { status: 'sent', error: 'timeout' },
        { status: 'pending', error: undefined },
      ]);
    });

    it('expired chunks tell the chat once while the notice waits; a failed file is told with its own notice', async () => {
      const s = await fresh();
      await got(s.queue.enqueueReply(CHAT, 'k', [...text('a'), ...text('b')], NOW));
      const a = await s.queue.nextUnsent(CHAT);
      if (!a) throw new Error('no chunk');
      expect(await got(s.queue.expireChunk(a, 'down', NOW, 'Replies were lost.'))).toBe(true);
      const b = await s.queue.nextUnsent(CHAT);
      if (!b) throw new Error('no second chunk');
      expect(b).toMatchObject({ key: 'k', idx: 1 });
      expect(await got(s.queue.expireChunk(b, 'down', NOW + 1, 'Replies were lost.'))).toBe(false);
      expect(await s.queue.countUnsent()).toBe(1);
      const notice = await s.queue.nextUnsent(CHAT);
      expect(notice).toMatchObject({ item: { type: 'text', text: 'Replies were lost.' } });
      expect(notice?.key.startsWith('notice:expired:')).toBe(true);
      await got(
        s.queue.failChunk(notice as NonNullable<typeof notice>, 'bad', NOW, 'That file could not be sent.'),
      );
      expect(await s.repliesFor(`${notice?.key}:failed:0`)).toEqual([
        { status: 'pending', error: undefined },
      ]);
      expect(await s.repliesFor('k')).toEqual([
        { status: 'failed', error: 'down' },
        { status: 'failed', error: 'down' },
      ]);
    });

    it('files named by unsent replies are kept; sent ones are not', async () => {
      const s = await fresh();
      const file = (path: string) => [
        { type: 'file' as const, path, mimeType: 'image/png', fileName: 'a.png', sizeBytes: 1 },
      ];
      await got(s.queue.enqueueReply(CHAT, 'f1', file('/staged/one.png'), NOW));
      await got(s.queue.enqueueReply(CHAT, 'f2', file('/staged/two.png'), NOW));
      const first = await s.queue.nextUnsent(CHAT);
      await got(s.queue.markChunkSent(first?.id ?? 0, NOW));
      expect(await s.unsentFiles()).toEqual(['/staged/two.png']);
    });

    it('recovery requeues some interrupted runs and fails others with a notice, in one transaction', async () => {
      const s = await fresh();
      for (const [chat, m] of [
        ['local', 'r'],
        ['other', 'f'],
      ] as const)
        await got(
          s.queue.acceptInbound(inbound({ chatId: chat, messageId: m }), { now: NOW, maxPending: 5 }),
        );
      const r = (await got(s.queue.claimNextRun(CHAT, 5, NOW, () => ({ count: 1 }))))?.rows[0]?.id ?? 0;
      const f = (await got(s.queue.claimNextRun(OTHER, 5, NOW, () => ({ count: 1 }))))?.rows[0]?.id ?? 0;
      expect((await s.queue.unfinished()).map((m) => [m.id, m.status])).toEqual([
        [r, 'running'],
        [f, 'running'],
      ]);
      await got(
        s.queue.recover({ now: NOW, requeue: [r], fail: new Map([[OTHER, [f]]]), notice: text('Lost.') }),
      );
      expect(await s.queue.message(r)).toMatchObject({ status: 'pending', tries: 1 });
      expect(await s.queue.message(f)).toMatchObject({ status: 'failed', note: 'crashed_twice' });
      expect(await s.repliesFor(`crash:${f}`)).toHaveLength(1);
      expect((await s.queue.unfinished(OTHER)).length).toBe(0);
    });

    it("fetched media replace a message's links; chat settings and sessions are kept and forgotten", async () => {
      const s = await fresh();
      const remote = [{ url: 'https://example.test/m.jpg', mimeType: 'image/jpeg' }];
      const stored = await got(
        s.queue.acceptInbound(inbound({ messageId: 'p', remoteMedia: remote }), { now: NOW, maxPending: 5 }),
      );
      const id = stored.type === 'stored' ? stored.id : 0;
      expect((await s.queue.message(id))?.remoteMedia).toEqual(remote);
      const media = [{ kind: 'image' as const, path: '/in/m.jpg', mimeType: 'image/jpeg', sizeBytes: 9 }];
      await got(s.queue.saveFetchedMedia(id, media, 'hello [image]'));
      const after = await s.queue.message(id);
      expect(after).toMatchObject({ media, text: 'hello [image]' });
      expect(after?.remoteMedia).toBeUndefined();

      expect(await s.queue.chatSettings(CHAT)).toEqual({
        agent: undefined,
        thinking: undefined,
        verbose: false,
      });
      const set = (messageId: string, change: { agent?: 'codex' | null; verbose?: boolean }) =>
        got(
          s.queue.acceptCommand(
            inbound({ messageId, text: '/agent' }),
            { now: NOW, scope: CHAT, defaultAgent: 'claude', note: 'agent', items: text },
            () => ({ reply: 'ok', effects: [{ type: 'set_chat', change }] }),
          ),
        );
      await set('c1', { agent: 'codex' });
      await set('c2', { verbose: true });
      expect(await s.queue.chatSettings(CHAT)).toEqual({
        agent: 'codex',
        thinking: undefined,
        verbose: true,
      });
      await set('c3', { agent: null });
      expect(await s.queue.chatSettings(CHAT)).toEqual({
        agent: undefined,
        thinking: undefined,
        verbose: true,
      });

      const kept = {
        scope: CHAT,
        agent: 'codex' as const,
        id: 'sess',
        generation: 0,
        confirmed: false,
        touch: true,
      };
      await got(s.queue.keepSession(kept, NOW));
      await got(s.queue.keepSession({ ...kept, confirmed: true, touch: false }, NOW + 5));
      expect((await s.queue.session(CHAT, 'codex')).row).toEqual({
        sessionId: 'sess',
        createdAt: NOW,
        lastUsedAt: NOW,
        confirmed: true,
      });
      await got(s.queue.forgetSession(CHAT, 'codex'));
      expect((await s.queue.session(CHAT, 'codex')).row).toBeUndefined();
    });

    it('a run is recorded, and job states round-trip', async () => {
      const s = await fresh();
      const run = {
        chat: CHAT,
        agent: 'claude',
        label: 'user',
        startedAt: NOW,
        durationMs: 1500.4,
        outcome: 'ok',
      };
      expect(await s.queue.recordRun({ ...run, usage: { inputTokens: 3, costUsd: 0.01 } })).toEqual({
        ok: true,
        value: undefined,
      });
      const state = {
        fingerprint: 'every 1h',
        nextRunAt: NOW + 3_600_000,
        failureStreak: 0,
        attempts: 1,
        done: false,
      };
      await s.jobStates.save('heartbeat', state, NOW);
      await s.jobStates.save('schedule:x', { ...state, done: true, lastOutcome: 'ok', lastRunAt: NOW }, NOW);
      const all = await s.jobStates.loadAll();
      expect(all.get('heartbeat')).toEqual({
        ...state,
        lastRunAt: undefined,
        lastOutcome: undefined,
        lastDetail: undefined,
        runningSince: undefined,
      });
      expect(all.get('schedule:x')).toMatchObject({ done: true, lastOutcome: 'ok', lastRunAt: NOW });
    });

    it('retention scrubs finished messages, drops settled replies and closed questions, keeps dedupe records longer', async () => {
      const s = await fresh();
      const DAY = 86_400_000;
      // The channels' seen ids are stamped by the clock, so this test's times start from it.
      const T = Date.now();
      await got(
        s.queue.acceptInbound(inbound({ messageId: 'old', text: 'secret plans' }), {
          now: T,
          maxPending: 5,
        }),
      );
      await got(
        s.queue.acceptInbound(inbound({ chatId: 'other', messageId: 'w' }), { now: T, maxPending: 5 }),
      );
      const ids =
        (await got(s.queue.claimNextRun(CHAT, 5, T, () => ({ count: 1 }))))?.rows.map((r) => r.id) ?? [];
      await got(
        s.queue.finishRun({
          chat: CHAT,
          ids,
          now: T,
          status: 'done',
          reply: { key: 'in:old', items: text('a') },
        }),
      );
      const chunk = await s.queue.nextUnsent(CHAT);
      await got(s.queue.markChunkSent(chunk?.id ?? 0, T));
      const q = await s.interactions.add(
        { chat: CHAT, type: 'question', runKey: 'in:1', asker: 'codex', text: 'Sure?' },
        T,
      );
      await s.interactions.close(q.id, 'expired', T);
      expect(await s.channelState('telegram').seen('u1')).toBe(false);

      expect(await s.pruneOldMessages(T + 31 * DAY, 30)).toEqual({
        scrubbed: 1,
        replies: 1,
        deleted: 0,
        seen: 0,
        questions: 1,
      });
      expect(await s.queue.message(ids[0] ?? 0)).toMatchObject({ text: '', status: 'done' });
      expect(await s.repliesFor('in:old')).toEqual([]);
      expect(await s.interactions.get(q.id)).toBeUndefined();
      expect(
        await got(s.queue.acceptInbound(inbound({ messageId: 'old' }), { now: T, maxPending: 5 })),
      ).toEqual({ type: 'duplicate' });
      // The waiting message is work the relay owes: never touched.
      expect((await s.queue.unfinished(OTHER)).map((m) => m.text)).toEqual(['hello']);

      expect(await s.pruneOldMessages(T + 91 * DAY, 30)).toMatchObject({ deleted: 1, seen: 1 });
      expect(await s.queue.message(ids[0] ?? 0)).toBeUndefined();
      expect(await s.channelState('telegram').seen('u1')).toBe(false);
    });
  });
}
