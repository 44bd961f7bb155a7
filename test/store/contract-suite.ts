// The store contract (docs/architecture.md "The store contract"), over the ports only: no Db, no SQL.
// Every engine must pass it: test/store/contract.test.ts runs it over SQLite and the deferred wrapper
// (each operation answered a turn later), test/postgres/contract.test.ts over PostgreSQL (npm run
// test:postgres). The engines' own tests read their tables.
import { afterEach, describe, expect, it } from 'vitest';
import type { CommandPlan } from '../../src/core/command-handler.js';
import { StoreError, type Written } from '../../src/store/errors.js';
import type { Store } from '../../src/store/open.js';
import { chatStateContract } from './contract-chat-state.js';
import { deliveryContract } from './contract-delivery.js';
import { interactionsContract } from './contract-interactions.js';
import { ownershipContract } from './contract-ownership.js';
import { whatsappContract } from './contract-whatsapp.js';
import { inbound } from './helpers.js';

const CHAT = 'console:local' as const;
const NOW = 1_700_000_000_000;
const text = (t: string) => [{ type: 'text' as const, text: t }];
const cmdOpts = (note: string) => ({
  now: NOW,
  scope: CHAT,
  defaultAgent: 'claude' as const,
  note,
  items: (reply: string) => text(reply),
});

async function got<T>(p: Promise<Written<T>>): Promise<T> {
  const w = await p;
  if (!w.ok) throw new StoreError(w);
  return w.value;
}

/** The contract's tests over the stores `openFresh` makes (each call an empty store of its own). */
export function storeContract(engine: string, openFresh: () => Promise<Store>): void {
  describe(`the store contract, engine ${engine}`, () => {
    const opened: Store[] = [];
    afterEach(async () => {
      // A store closed by its test is closed again here: closing twice must not throw into the run.
      for (const s of opened.splice(0)) await s.close().catch(() => undefined);
    });
    const fresh = async () => {
      const s = await openFresh();
      opened.push(s);
      return s;
    };

    it('ids of one chat come in arrival order; a message seen before is a duplicate', async () => {
      const s = await fresh();
      const ids: number[] = [];
      for (const m of ['a', 'b', 'c']) {
        const r = await got(
          s.queue.acceptInbound(inbound({ messageId: m, text: m }), { now: NOW, maxPending: 10 }),
        );
        if (r.type !== 'stored') throw new Error(r.type);
        ids.push(r.id);
      }
      expect([...ids].sort((x, y) => x - y)).toEqual(ids);
      expect(
        await got(s.queue.acceptInbound(inbound({ messageId: 'b' }), { now: NOW, maxPending: 10 })),
      ).toEqual({
        type: 'duplicate',
      });
      const seen: string[] = [];
      await got(
        s.queue.claimNextRun(CHAT, 10, NOW, (waiting) => {
          seen.push(...waiting.map((w) => w.text));
          return { count: 0 };
        }),
      );
      expect(seen).toEqual(['a', 'b', 'c']);
    });

    it('accepting past the cap drops the message, as one transaction with its count', async () => {
      const s = await fresh();
      const accept = (m: string) =>
        got(
          s.queue.acceptInbound(inbound({ messageId: m }), {
            now: NOW,
            maxPending: 2,
            dropNotice: text('full'),
          }),
        );
      const out = await Promise.all(['1', '2', '3', '4'].map(accept));
      expect(out.map((o) => o.type)).toEqual(['stored', 'stored', 'dropped', 'dropped']);
      expect(await s.queue.countPending(CHAT)).toBe(2);
    });

    it('a callback is pure: its decision is applied by the store, not when it returns, and never for a duplicate', async () => {
      const s = await fresh();
      await got(s.queue.acceptInbound(inbound({ messageId: 'w' }), { now: NOW, maxPending: 10 }));
      let calls = 0;
      const decide = (): CommandPlan => {
        calls++;
        return { reply: 'Stopped.', effects: [{ type: 'drop_waiting' }, { type: 'stop_run' }] };
      };
      const cmd = inbound({ messageId: 's', text: '/stop' });
      const first = await got(s.queue.acceptCommand(cmd, cmdOpts('stop'), decide));
      expect(first).toMatchObject({ type: 'applied', plan: { reply: 'Stopped.' } });
      expect(await got(s.queue.acceptCommand(cmd, cmdOpts('stop'), decide))).toEqual({ type: 'duplicate' });
      expect(calls).toBeGreaterThanOrEqual(1);
      expect(await s.queue.countPending(CHAT)).toBe(0);
      if (first.type !== 'applied') throw new Error('not applied');
      expect(await s.repliesFor(`cmd:${first.id}`)).toEqual([{ status: 'pending', error: undefined }]);
    });

    it('/stop is durable for the running messages: a requeue after it finds none', async () => {
      const s = await fresh();
      await got(s.queue.acceptInbound(inbound({ messageId: 'r' }), { now: NOW, maxPending: 10 }));
      const claim = await got(s.queue.claimNextRun(CHAT, 10, NOW, () => ({ count: 1 })));
      const id = claim?.rows[0]?.id as number;
      expect(claim?.rows[0]).toMatchObject({ status: 'running', tries: 1 });
      await got(
        s.queue.acceptCommand(inbound({ messageId: 's', text: '/stop' }), cmdOpts('stop'), () => ({
          reply: 'Stopped.',
          effects: [{ type: 'stop_run' }],
        })),
      );
      await got(s.queue.requeueRun([id], NOW));
      expect(await s.queue.message(id)).toMatchObject({ status: 'done', note: 'stopped' });
      expect(await got(s.queue.claimNextRun(CHAT, 10, NOW, () => ({ count: 1 })))).toBeUndefined();
    });

    it("a command's snapshot names the chat's running messages, whichever process runs them", async () => {
      const s = await fresh();
      await got(
        s.queue.acceptInbound(inbound({ messageId: 'run', senderId: 'alice' }), { now: NOW, maxPending: 10 }),
      );
      await got(
        s.queue.acceptInbound(inbound({ messageId: 'wait', senderId: 'bob' }), { now: NOW, maxPending: 10 }),
      );
      await got(s.queue.claimNextRun(CHAT, 10, NOW + 5, () => ({ count: 1 })));
      const seen: unknown[] = [];
      await got(
        s.queue.acceptCommand(inbound({ messageId: 'st', text: '/status' }), cmdOpts('status'), (snap) => {
          seen.push(snap.running);
          return { reply: 'ok', effects: [] };
        }),
      );
      expect(seen.at(-1)).toEqual([{ startedAt: NOW + 5, senderId: 'alice' }]);
    });

    it('a session is kept only in the generation its run started in', async () => {
      const s = await fresh();
      const start = await s.queue.session(CHAT, 'claude');
      const kept = { scope: CHAT, agent: 'claude' as const, confirmed: true, touch: true };
      await got(s.queue.keepSession({ ...kept, id: 'one', generation: start.generation }, NOW));
      expect((await s.queue.session(CHAT, 'claude')).row?.sessionId).toBe('one');
      await got(
        s.queue.acceptCommand(inbound({ messageId: 'n', text: '/new' }), cmdOpts('new'), () => ({
          reply: 'Fresh.',
          effects: [
            { type: 'clear_session', scope: CHAT, agent: 'claude' },
            { type: 'reset_scope', scope: CHAT },
          ],
        })),
      );
      await got(s.queue.keepSession({ ...kept, id: 'stale', generation: start.generation }, NOW));
      const after = await s.queue.session(CHAT, 'claude');
      expect(after).toEqual({ row: undefined, generation: start.generation + 1 });
    });

    it('a finished run writes its reply once, however often it is recorded', async () => {
      const s = await fresh();
      await got(s.queue.acceptInbound(inbound({ messageId: 'f' }), { now: NOW, maxPending: 10 }));
      const claim = await got(s.queue.claimNextRun(CHAT, 10, NOW, () => ({ count: 1 })));
      const ids = claim?.rows.map((r) => r.id) ?? [];
      const run = {
        chat: CHAT,
        ids,
        now: NOW,
        status: 'done' as const,
        reply: { key: 'in:f', items: text('hi') },
      };
      await got(s.queue.finishRun(run));
      await got(s.queue.finishRun(run));
      expect(await s.repliesFor('in:f')).toHaveLength(1);
      expect(await s.queue.nextUnsent(CHAT)).toMatchObject({
        key: 'in:f',
        item: { type: 'text', text: 'hi' },
      });
    });

    it('text with a NUL character (and the engine escape character) is stored and given back unchanged', async () => {
      const s = await fresh();
      // U+FFFF is what PostgreSQL's escape of NUL is made of (store/postgres/nul.ts): it must pass too.
      const odd = 'a\u0000b\uffff0c\u0000';
      const msg = inbound({ messageId: 'nul', text: odd, senderName: `N${odd}`, context: `quoted ${odd}` });
      const r = await got(s.queue.acceptInbound(msg, { now: NOW, maxPending: 10 }));
      if (r.type !== 'stored') throw new Error(r.type);
      const claim = await got(s.queue.claimNextRun(CHAT, 10, NOW, () => ({ count: 1 })));
      expect(claim?.rows[0]).toMatchObject({ text: odd, senderName: `N${odd}`, context: `quoted ${odd}` });
      expect(await s.queue.message(r.id)).toMatchObject({ text: odd, senderName: `N${odd}` });
      const reply = { key: 'in:nul', items: [{ type: 'text' as const, text: `re: ${odd}` }] };
      await got(s.queue.finishRun({ chat: CHAT, ids: [r.id], now: NOW, status: 'done', reply }));
      expect(await s.queue.nextUnsent(CHAT)).toMatchObject({ key: 'in:nul', item: { text: `re: ${odd}` } });
      const row = await s.queue.nextUnsent(CHAT);
      if (!row) throw new Error('no reply');
      await got(s.queue.markChunkRetry(row.id, `refused ${odd}`, NOW + 1));
      expect(await s.queue.nextUnsent(CHAT)).toMatchObject({ error: `refused ${odd}` });
      // An agent's question and its scheduled task, whose texts come from the agent.
      const q = await s.interactions.add(
        {
          chat: CHAT,
          type: 'question',
          runKey: 'r',
          asker: 'claude',
          text: `which ${odd}?`,
          choices: [odd, 'x'],
        },
        NOW,
      );
      expect(await s.interactions.get(q.id)).toMatchObject({ text: `which ${odd}?`, choices: [odd, 'x'] });
      const t = await s.tasks.add({ chat: CHAT, prompt: `do ${odd}`, every: '1h' }, 'nul:0', 5, NOW);
      expect(t.type).toBe('added');
      expect((await s.tasks.list(CHAT)).map((x) => x.prompt)).toEqual([`do ${odd}`]);
    });

    it("agentwire's message ids name a sent message or a received one, never an edit or a command", async () => {
      const s = await fresh();
      const r = await got(s.queue.acceptInbound(inbound({ messageId: 'p1' }), { now: NOW, maxPending: 10 }));
      if (r.type !== 'stored') throw new Error(r.type);
      await got(s.queue.enqueueReply(CHAT, 'k:msg', text('hello'), NOW));
      const out = await s.queue.outboxIdOf('k:msg');
      expect(out).toBeGreaterThan(0);
      await got(s.queue.enqueueReply(CHAT, 'k:edit', [{ type: 'edit', ref: `out:${out}`, text: 'hi' }], NOW));
      const edit = await s.queue.outboxIdOf('k:edit');
      expect(await s.queue.messageRef({ type: 'out', id: out! })).toEqual({
        chat: CHAT,
        own: true,
        status: 'pending',
      });
      expect(await s.queue.messageRef({ type: 'in', id: r.id })).toEqual({
        chat: CHAT,
        own: false,
        status: 'received',
        providerId: 'p1',
      });
      expect(await s.queue.messageRef({ type: 'out', id: edit! })).toBeUndefined();
      expect(await s.queue.messageRef({ type: 'out', id: 9999 })).toBeUndefined();
      expect(await s.queue.outboxIdOf('k:none')).toBeUndefined();
      // Written to another chat by a run of this one: stored under that chat, once.
      expect(await got(s.queue.enqueueForChat('console:other', 'k:to', text('x'), NOW))).toBe(1);
      expect(await got(s.queue.enqueueForChat('console:other', 'k:to', text('x'), NOW))).toBe(0);
      expect(
        await s.queue.messageRef({ type: 'out', id: (await s.queue.outboxIdOf('k:to'))! }),
      ).toMatchObject({
        chat: 'console:other',
      });
    });

    it('an edit is stale when a newer unsent edit of the same message waits under the same key prefix', async () => {
      const s = await fresh();
      await got(s.queue.enqueueReply(CHAT, 'st:1', text('working'), NOW));
      const msg = (await s.queue.outboxIdOf('st:1')) as number;
      const edit = (key: string, t: string) =>
        got(s.queue.enqueueReply(CHAT, key, [{ type: 'edit', ref: `out:${msg}`, text: t }], NOW));
      await edit('st:1:a', 'reading');
      await edit('st:1:b', 'running');
      await edit('tool:c', 'said by a tool');
      const next = async () => {
        const row = await s.queue.nextUnsent(CHAT);
        if (!row) throw new Error('no row');
        await got(s.queue.markChunkSent(row.id, NOW, `p${row.id}`));
        return row;
      };
      const status = await next();
      expect(await s.queue.newerEditPending(status, 'st:')).toBe(false);
      const first = await next();
      expect(first.key).toBe('st:1:a');
      expect(await s.queue.newerEditPending(first, 'st:')).toBe(true);
      const second = await next();
      // The tool's edit is under another prefix: it never makes a status edit stale.
      expect(await s.queue.newerEditPending(second, 'st:')).toBe(false);
      expect(await s.queue.newerEditPending(second, 'tool:')).toBe(true);
    });

    it("a failure is a StoreError in the store's words, at every port", async () => {
      const s = await fresh();
      await s.close();
      for (const op of [
        () => s.queue.countPending(CHAT),
        () => s.jobStates.loadAll(),
        () => s.unsentFiles(),
      ]) {
        const err = await op().catch((e: unknown) => e);
        expect(err).toBeInstanceOf(StoreError);
        expect(err).toMatchObject({ reason: 'other', retryable: false });
      }
    });
    deliveryContract(fresh);
    ownershipContract(fresh);
    chatStateContract(fresh);
    interactionsContract(fresh);
    whatsappContract(fresh);
  });
}
