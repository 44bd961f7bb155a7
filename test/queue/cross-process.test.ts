// Notifications between processes on one SQLite store (store/ownership.ts): two stores on one file,
// each with its own owner and queue, as two relays (or a relay and `agentwire chat`) have. What one
// process records for a chat whose run the other holds reaches that run: a /stop (`chat_control`),
// an answer to its question (`interaction_answered`), and a task added by a run (`tasks_changed`).
import { describe, expect, it } from 'vitest';
import { sharedTasksChanged } from '../../src/cli/ownership.js';
import type { ChatKey } from '../../src/core/types.js';
import { controlKey, parseControl } from '../../src/queue/chat-control.js';
import type { OwnershipTimings } from '../../src/queue/process-owner.js';
import { inbound } from '../store/helpers.js';
import { ok } from './helpers.js';
import { type Proc, useProcs } from './procs-rig.js';

const CHAT: ChatKey = 'console:local';
const LIVE: OwnershipTimings = { leaseMs: 2_000, renewMs: 50, pollMs: 20 };

const procs = useProcs();
const newFile = procs.newFile;
const proc = (file: string) => procs.proc(file, LIVE);

/** Polls `check` until it holds, at most `ms`. */
async function until(check: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setImmediate(r));
  }
}

/** B runs a message of CHAT (B holds the chat's lease), A beside it on the same file. */
async function runningInB(): Promise<{ a: Proc; b: Proc; id: number }> {
  const file = newFile();
  const b = await proc(file);
  const sent = await b.queue.handleInbound(inbound({ messageId: 'm1', text: 'work on it' }));
  const id = sent.type === 'stored' ? sent.inboxId : -1;
  await b.agent.untilCalls(1);
  const a = await proc(file);
  return { a, b, id };
}

describe('chat_control: a /stop typed in A reaches the run B holds', () => {
  it("stops B's run, and its message is done as stopped", async () => {
    const { a, b, id } = await runningInB();
    const signal = b.agent.calls[0]?.request.signal;
    expect(signal?.aborted).toBe(false);
    expect(await a.queue.handleInbound(inbound({ messageId: 's1', text: '/stop' }))).toEqual({
      type: 'command',
    });
    await until(() => signal?.aborted === true);
    await b.queue.whenIdle();
    expect(b.agent.pending).toHaveLength(0);
    expect(await b.store.queue.message(id)).toMatchObject({ status: 'done', note: 'stopped' });
    // A ran nothing: the chat was B's.
    expect(a.agent.calls).toHaveLength(0);
    // A's reply says what happened: B's run, not A's empty slot. A's deliverer or B's sends it.
    await until(() => [...a.channel.texts(), ...b.channel.texts()].length > 0);
    expect([...a.channel.texts(), ...b.channel.texts()]).toEqual(['Stopped the agent.']);
  });

  it('/status typed in A shows the run B has under way; /stop once it ended says nothing runs', async () => {
    const { a, b } = await runningInB();
    const all = () => [...a.channel.texts(), ...b.channel.texts()];
    await a.queue.handleInbound(inbound({ messageId: 'st1', text: '/status' }));
    await until(() => all().length === 1);
    expect(all()[0]).toMatch(/\nRun: message, active for \d+ s/);
    b.agent.pending[0]?.finish(ok('done in B'));
    await until(() => all().length === 2);
    await b.queue.whenIdle();
    await a.queue.handleInbound(inbound({ messageId: 's2', text: '/stop' }));
    await until(() => all().length === 3);
    expect(
      all()
        .filter((t) => !t.startsWith('Agent:'))
        .sort(),
    ).toEqual(['Nothing is running.', 'done in B']);
  });

  it('a key round-trips, and a key of a newer version is ignored', () => {
    const c = { type: 'reset_scope', chat: CHAT, scope: 'chat:console:local' } as const;
    expect(parseControl(controlKey(c))).toEqual(c);
    expect(parseControl(controlKey({ type: 'stop', chat: CHAT }))).toEqual({ type: 'stop', chat: CHAT });
    expect(parseControl('{"type":"pause","chat":"console:local"}')).toBeUndefined();
    expect(parseControl('console:local')).toBeUndefined();
  });
});

describe('interaction_answered: an answer A receives reaches the question B’s run waits on', () => {
  it('A routes the message by what the store says was shown, records it, and B’s ask resolves', async () => {
    const { a, b, id } = await runningInB();
    const it = b.queue.interactions;
    if (!it) throw new Error('no interactions');
    const answer = it.ask({ chat: CHAT, runKey: `in:${id}`, question: 'which colour?' }, 60_000);
    await until(async () => (await b.store.interactions.pending(CHAT)).some((i) => i.shownAt !== undefined));
    const r = await a.queue.handleInbound(inbound({ messageId: 'ans1', text: 'the red one' }));
    expect(r).toEqual({ type: 'command' });
    expect(await answer).toBe('the red one');
    const [q] = await b.store.interactions.allPending();
    expect(q).toBeUndefined();
    // Not queued as a message for the chat either.
    expect(await a.store.queue.unfinished()).toEqual([expect.objectContaining({ id })]);
  });
});

describe('tasks_changed: a task a run in A added reaches the scheduler in B', () => {
  it("B's listener hears A's tools, and A's own listener is not called twice", async () => {
    const file = newFile();
    const a = await proc(file);
    const b = await proc(file);
    const tools = () => {
      const listeners: (() => void)[] = [];
      return {
        onTasksChanged: (l: () => void) => listeners.push(l),
        fire: () => {
          for (const l of listeners) l();
        },
      };
    };
    const toolsA = tools();
    const toolsB = tools();
    let heardA = 0;
    let heardB = 0;
    sharedTasksChanged(a.owner, toolsA)(() => heardA++);
    sharedTasksChanged(b.owner, toolsB)(() => heardB++);
    toolsA.fire();
    await until(() => heardB === 1);
    expect(heardA).toBe(1);
    // A polls its own notification too: it is skipped there.
    await a.owner.tick();
    expect(heardA).toBe(1);
  });
});
