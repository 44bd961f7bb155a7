// The store contract, continued: questions and approvals runs wait on, and the chats' allowances,
// over the ports only (run by storeContract in test/store/contract-suite.ts, every engine).
import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/open.js';
import type { CommandEffect } from '../../src/store/queue-ops.js';
import { inbound } from './helpers.js';

const CHAT = 'console:local' as const;
const OTHER = 'console:other' as const;
const NOW = 1_700_000_000_000;
const notice = (key: string, text: string) => ({ key, items: [{ type: 'text' as const, text }] });
const ask = (chat: typeof CHAT | typeof OTHER, type: 'approval' | 'question' = 'question') => ({
  chat,
  type,
  runKey: 'in:1',
  asker: 'codex',
  text: 'Which branch?',
  choices: ['main', 'dev'],
  ...(type === 'approval' && { toolKind: 'shell' }),
});

export function interactionsContract(fresh: () => Promise<Store>): void {
  describe('interactions', () => {
    it('a question is shown once, answered once by a message, and a redelivered answer is a duplicate', async () => {
      const s = await fresh();
      const q = await s.interactions.add(ask(CHAT), NOW);
      expect(q).toMatchObject({ chat: CHAT, status: 'pending', choices: ['main', 'dev'], createdAt: NOW });
      expect(await s.interactions.show(q.id, NOW + 1, NOW + 60_000, notice('ask:1', 'Which branch?'))).toBe(
        true,
      );
      expect(await s.repliesFor('ask:1')).toHaveLength(1);
      const msg = inbound({ messageId: 'a1', text: 'dev' });
      expect(await s.interactions.answer(msg, q.id, 'dev', NOW + 2, notice('ack:1', 'Noted.'))).toBe(
        'answered',
      );
      expect(await s.interactions.answer(msg, q.id, 'dev', NOW + 3)).toBe('closed');
      expect(await s.interactions.get(q.id)).toMatchObject({
        status: 'answered',
        answer: 'dev',
        closedAt: NOW + 2,
      });
      expect(await s.repliesFor('ack:1')).toHaveLength(1);
      expect(await s.interactions.show(q.id, NOW, NOW, notice('ask:again', 'x'))).toBe(false);
      expect(await s.repliesFor('ask:again')).toEqual([]);
      // The answering message is a dedupe record that never runs.
      expect(await s.queue.countPending(CHAT)).toBe(0);
      const q2 = await s.interactions.add(ask(CHAT), NOW);
      expect(await s.interactions.answer(msg, q2.id, 'main', NOW + 4)).toBe('duplicate');
      expect(await s.interactions.get(q2.id)).toMatchObject({ status: 'pending' });
    });

    it('a swallowed message is recorded once; closing tells the chat; left-overs close for the owned chats only', async () => {
      const s = await fresh();
      const m = inbound({ messageId: 'sw' });
      expect(await s.interactions.swallow(m, NOW, 'not_approver', notice('sw:1', 'Not yours.'))).toBe(true);
      expect(await s.interactions.swallow(m, NOW, 'not_approver')).toBe(false);
      expect(await s.repliesFor('sw:1')).toHaveLength(1);

      const a = await s.interactions.add(ask(CHAT), NOW);
      expect(await s.interactions.close(a.id, 'expired', NOW + 1, notice('exp:1', 'Timed out.'))).toBe(true);
      expect(await s.interactions.close(a.id, 'cancelled', NOW + 2)).toBe(false);
      expect(await s.repliesFor('exp:1')).toHaveLength(1);

      const mine = await s.interactions.add(ask(CHAT), NOW);
      const theirs = await s.interactions.add(ask(OTHER), NOW);
      expect((await s.interactions.allPending()).map((i) => i.id)).toEqual([mine.id, theirs.id]);
      const closed = await s.interactions.closeLeftOver(
        NOW + 5,
        (chat) => chat === CHAT,
        (i) => notice(`restart:${i.id}`, 'The relay restarted.'),
      );
      expect(closed).toEqual([{ ...mine, status: 'restarted', closedAt: NOW + 5 }]);
      expect(await s.repliesFor(`restart:${mine.id}`)).toHaveLength(1);
      expect(await s.interactions.pending(OTHER)).toEqual([theirs]);
      expect(await s.interactions.pending(CHAT)).toEqual([]);
    });

    it('"allow for this chat" is remembered with the approval answered by a command, and forgotten by another', async () => {
      const s = await fresh();
      const ap = await s.interactions.add(ask(CHAT, 'approval'), NOW);
      const command = (messageId: string, effects: CommandEffect[]) =>
        s.queue.acceptCommand(
          inbound({ messageId, text: '2' }),
          { now: NOW, scope: CHAT, defaultAgent: 'claude', note: 'approval', items: () => [] },
          (state) => ({ reply: state.pending.length === 1 ? 'Allowed.' : 'Nothing waits.', effects }),
        );
      await command('c1', [{ type: 'answer_approval', id: ap.id, choice: 'allow_chat', toolKind: 'shell' }]);
      expect(await s.interactions.get(ap.id)).toMatchObject({ status: 'answered', answer: 'allow_chat' });
      expect(await s.interactions.allowed(CHAT, 'shell')).toBe(true);
      expect(await s.interactions.allowed(OTHER, 'shell')).toBe(false);
      expect((await s.interactions.allowances(CHAT)).map((a) => a.toolKind)).toEqual(['shell']);
      await command('c2', [{ type: 'reset_allowances' }]);
      expect(await s.interactions.allowances(CHAT)).toEqual([]);
    });
  });
}
