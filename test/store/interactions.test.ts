// The interactions port on a real SQLite file: questions and approvals, answers recorded with the
// message's dedupe row, allowances, and the close at restart.
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatKey, OutboundItem } from '../../src/core/types.js';
import { interactionStore } from '../../src/store/sqlite/interactions.js';
import { rowsForKey } from '../../src/store/sqlite/outbox.js';
import { sqliteQueueStore } from '../../src/store/sqlite/queue-sqlite.js';
import { inbound, tempDb } from './helpers.js';

const chat = 'console:local' as ChatKey;
const other = 'twilio:+15550002' as ChatKey;
const items = (text: string): OutboundItem[] => [{ type: 'text', text }];
let t: ReturnType<typeof tempDb>;

afterEach(() => t.cleanup());

function setup() {
  t = tempDb();
  return interactionStore(t.db);
}

const approval = {
  chat,
  type: 'approval' as const,
  runKey: 'in:1',
  asker: 'codex',
  toolKind: 'shell',
  text: 'run: make',
};

describe('interaction store', () => {
  it('adds, shows once with its message, and lists what is pending', async () => {
    const s = setup();
    const a = await s.add(approval, 100);
    const q = await s.add(
      { chat, type: 'question', runKey: 'in:1', asker: 'codex', text: 'Which?', choices: ['a', 'b'] },
      101,
    );
    expect(a).toMatchObject({ id: expect.any(Number), status: 'pending', toolKind: 'shell' });
    expect(
      await s.show(a.id, 110, 710, { key: 'ask:in:1:1', items: items('codex wants to run: make') }),
    ).toBe(true);
    expect(rowsForKey(t.db, 'ask:in:1:1')).toHaveLength(1);
    expect((await s.pending(chat)).map((i) => [i.id, i.shownAt, i.expiresAt, i.choices])).toEqual([
      [a.id, 110, 710, undefined],
      [q.id, undefined, undefined, ['a', 'b']],
    ]);
    expect(await s.pending(other)).toEqual([]);
  });

  it('an answer is recorded once: a redelivered message answers nothing', async () => {
    const s = setup();
    const q = await s.add({ ...approval, type: 'question', text: 'Which?' }, 100);
    const msg = inbound({ messageId: 'ans-1', text: 'blue' });
    const reply = { key: 'ans:console:ans-1', items: items('Answer passed to codex.') };
    expect(await s.answer(msg, q.id, 'blue', 120, reply)).toBe('answered');
    expect(await s.answer(msg, q.id, 'blue', 121, reply)).toBe('closed');
    const q2 = await s.add({ ...approval, type: 'question', text: 'Again?' }, 130);
    // The same message id again, for another question: the dedupe row says it was seen.
    expect(await s.answer(msg, q2.id, 'blue', 131, reply)).toBe('duplicate');
    expect(await s.get(q.id)).toMatchObject({ status: 'answered', answer: 'blue', closedAt: 120 });
    expect((await s.get(q2.id))?.status).toBe('pending');
    // Never a message to run.
    expect(await sqliteQueueStore(t.db).countPending(chat)).toBe(0);
    expect(rowsForKey(t.db, 'ans:console:ans-1')).toHaveLength(1);
  });

  it('a closed question leaves the message unrecorded (it runs as a message)', async () => {
    const s = setup();
    const q = await s.add({ ...approval, type: 'question' }, 100);
    expect(await s.close(q.id, 'expired', 150)).toBe(true);
    const msg = inbound({ messageId: 'late', text: 'blue' });
    expect(await s.answer(msg, q.id, 'blue', 160)).toBe('closed');
    const accepted = await sqliteQueueStore(t.db).acceptInbound(msg, { now: 161, maxPending: 10 });
    expect(accepted).toMatchObject({ ok: true, value: { type: 'stored' } });
  });

  it('swallow keeps the dedupe row and the reply once', async () => {
    const s = setup();
    const msg = inbound({ messageId: 'x1', text: '1' });
    const reply = { key: 'ans:console:x1', items: items('Only an approver can answer this.') };
    expect(await s.swallow(msg, 100, 'answer_not_approver', reply)).toBe(true);
    expect(await s.swallow(msg, 101, 'answer_not_approver', reply)).toBe(false);
    expect(rowsForKey(t.db, 'ans:console:x1')).toHaveLength(1);
    expect(await sqliteQueueStore(t.db).countPending(chat)).toBe(0);
  });

  it('close: once, with its notice; a closed one cannot be shown', async () => {
    const s = setup();
    const a = await s.add(approval, 100);
    const notice = { key: 'ask-expired:1', items: items('No answer in 10 min: denied.') };
    expect(await s.close(a.id, 'expired', 200, notice)).toBe(true);
    expect(await s.close(a.id, 'cancelled', 201, { key: 'other', items: items('x') })).toBe(false);
    expect(rowsForKey(t.db, 'ask-expired:1')).toHaveLength(1);
    expect(rowsForKey(t.db, 'other')).toHaveLength(0);
    expect(await s.show(a.id, 300, 900, { key: 'ask:late', items: items('late') })).toBe(false);
    expect(rowsForKey(t.db, 'ask:late')).toHaveLength(0);
    expect(await s.pending(chat)).toEqual([]);
  });

  it('allowances: remembered per chat and kind, reset by a command', async () => {
    const s = setup();
    const q = sqliteQueueStore(t.db);
    const a = await s.add(approval, 100);
    expect(await s.allowed(chat, 'shell')).toBe(false);
    const res = await q.acceptCommand(
      inbound({ messageId: 'c1', text: '/approve chat' }),
      { now: 110, scope: chat, defaultAgent: 'codex', note: 'approve', items },
      (snap) => {
        expect(snap.pending.map((i) => i.id)).toEqual([a.id]);
        return {
          reply: 'ok',
          effects: [{ type: 'answer_approval', id: a.id, choice: 'allow_chat', toolKind: 'shell' }],
        };
      },
    );
    expect(res.ok).toBe(true);
    expect(await s.allowed(chat, 'shell')).toBe(true);
    expect(await s.allowed(other, 'shell')).toBe(false);
    expect(await s.allowed(chat, 'edit')).toBe(false);
    expect((await s.get(a.id))?.answer).toBe('allow_chat');
    expect((await s.allowances(chat)).map((x) => x.toolKind)).toEqual(['shell']);
    await q.acceptCommand(
      inbound({ messageId: 'c2', text: '/approvals reset' }),
      { now: 120, scope: chat, defaultAgent: 'codex', note: 'approvals', items },
      (snap) => {
        expect(snap.allowances).toEqual(['shell']);
        return { reply: '', effects: [{ type: 'reset_allowances' }] };
      },
    );
    expect(await s.allowed(chat, 'shell')).toBe(false);
    // The first command's reply was written; the second's, empty, writes nothing.
    expect(rowsForKey(t.db, 'cmd:1').map((r) => r.item)).toEqual([{ type: 'text', text: 'ok' }]);
    expect(rowsForKey(t.db, 'cmd:2')).toHaveLength(0);
  });

  it('an allow_once answer remembers nothing', async () => {
    const s = setup();
    const a = await s.add(approval, 100);
    await sqliteQueueStore(t.db).acceptCommand(
      inbound({ messageId: 'c1', text: '1' }),
      { now: 110, scope: chat, defaultAgent: 'codex', note: 'approve', items },
      () => ({
        reply: 'ok',
        effects: [{ type: 'answer_approval', id: a.id, choice: 'allow_once', toolKind: 'shell' }],
      }),
    );
    expect(await s.allowed(chat, 'shell')).toBe(false);
  });

  it('at start, closes what a previous process left in the chats it owns and tells each', async () => {
    const s = setup();
    const a = await s.add(approval, 100);
    const b = await s.add({ ...approval, chat: other }, 101);
    const done = await s.add(approval, 102);
    await s.close(done.id, 'expired', 103);
    const closed = await s.closeLeftOver(
      200,
      (c) => c === chat,
      (i) => ({ key: `ask-restart:${i.id}`, items: items(`restarted ${i.text}`) }),
    );
    expect(closed.map((i) => i.id)).toEqual([a.id]);
    expect((await s.get(a.id))?.status).toBe('restarted');
    expect((await s.get(b.id))?.status).toBe('pending');
    expect(rowsForKey(t.db, `ask-restart:${a.id}`)).toHaveLength(1);
    expect(
      await s.closeLeftOver(
        300,
        () => true,
        (i) => ({ key: `r2:${i.id}`, items: items('x') }),
      ),
    ).toHaveLength(1);
    expect(await s.allPending()).toEqual([]);
  });
});
