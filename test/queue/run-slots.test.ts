import { afterEach, describe, expect, it } from 'vitest';
import { type AbortReason, type ActiveRun, RunSlots } from '../../src/queue/run-slots.js';
import { getInbound, pendingForChat } from '../../src/store/sqlite/inbox.js';
import { FakeAgent, type Harness, harness, ok } from './helpers.js';

let h: Harness;
afterEach(() => h?.cleanup());

const tick = () => new Promise((r) => setImmediate(r));

describe('runSlots: order and concurrency', () => {
  it('runs one message at a time per chat, in arrival order (followup)', async () => {
    const agent = new FakeAgent();
    h = harness({ agent, config: { queue: { whileBusy: 'followup' } } });
    for (const t of ['one', 'two', 'three', 'four']) expect((await h.send(t)).type).toBe('stored');
    for (let i = 1; i <= 4; i++) {
      await agent.untilCalls(i);
      await tick();
      expect(agent.pending).toHaveLength(1);
      agent.pending[0]?.finish(ok(`reply ${i}`));
    }
    await h.channel.untilSent(4);
    expect(agent.prompts()).toEqual(['one', 'two', 'three', 'four']);
    expect(agent.maxConcurrent).toBe(1);
    expect(h.channel.texts()).toEqual(['reply 1', 'reply 2', 'reply 3', 'reply 4']);
  });

  it('never runs more than maxConcurrentRuns chats at once, and serves chats in arrival order', async () => {
    const agent = new FakeAgent();
    h = harness({ agent, config: { queue: { maxConcurrentRuns: 3 } } });
    for (let c = 0; c < 10; c++) await h.send(`hi ${c}`, { chatId: `chat${c}` });
    await agent.untilCalls(3);
    await tick();
    expect(agent.calls).toHaveLength(3);
    while (agent.calls.length < 10 || agent.pending.length > 0) {
      expect(agent.pending.length).toBeLessThanOrEqual(3);
      agent.pending[0]?.finish(ok('done'));
      await tick();
    }
    await h.channel.untilSent(10);
    // The last reply goes out before its run has recorded its history and given the lane back.
    await h.queue.whenIdle();
    expect(agent.maxConcurrent).toBe(3);
    expect(agent.prompts()).toEqual(Array.from({ length: 10 }, (_, c) => `hi ${c}`));
    expect(await h.queue.status()).toMatchObject({ active: [], waiting: {}, unsentReplies: 0 });
  });
});

describe('busy policies', () => {
  it('collect: messages sent during a run become one next prompt, with sender and time', async () => {
    const agent = new FakeAgent();
    h = harness({ agent });
    await h.send('first');
    await agent.untilCalls(1);
    await h.send('second', { senderName: 'Ann', at: Date.UTC(2026, 0, 1, 9, 15) });
    await h.send('third', { senderName: 'Ann', at: Date.UTC(2026, 0, 1, 9, 16) });
    expect((await h.queue.status()).waiting).toEqual({ 'console:local': 2 });
    agent.pending[0]?.finish(ok('answer 1'));
    await agent.untilCalls(2);
    expect(agent.calls[1]?.request.prompt).toBe(
      '[Message from Ann (local) at 09:15]\nsecond\n\n[Message from Ann (local) at 09:16]\nthird',
    );
    agent.pending[0]?.finish(ok('answer 2'));
    await h.channel.untilSent(2);
    expect(agent.calls).toHaveLength(2);
    expect(h.channel.texts()).toEqual(['answer 1', 'answer 2']);
  });

  it('followup: each message sent during a run gets its own run, in order', async () => {
    const agent = new FakeAgent((req) => ok(`re: ${req.prompt}`));
    agent.auto = undefined;
    h = harness({ agent, config: { queue: { whileBusy: 'followup' } } });
    await h.send('first');
    await agent.untilCalls(1);
    await h.send('second');
    await h.send('third');
    agent.auto = (req) => ok(`re: ${req.prompt}`);
    agent.pending[0]?.finish(ok('re: first'));
    await h.channel.untilSent(3);
    expect(agent.prompts()).toEqual(['first', 'second', 'third']);
    expect(h.channel.texts()).toEqual(['re: first', 're: second', 're: third']);
  });

  it('interrupt: a new message stops the running agent; the next run takes both, in order, as one prompt', async () => {
    const agent = new FakeAgent();
    h = harness({ agent, config: { queue: { whileBusy: 'interrupt' } } });
    const first = await h.send('long task', { senderName: 'Ann' });
    await agent.untilCalls(1);
    const signal = agent.calls[0]?.request.signal as AbortSignal;
    const second = await h.send('never mind, do this', { senderName: 'Ann', at: 1_700_000_060_000 });
    expect(signal.aborted).toBe(true);
    await agent.untilCalls(2);
    expect(agent.calls[1]?.request.prompt).toBe(
      '[Message from Ann (local) at 22:13]\nlong task\n\n[Message from Ann (local) at 22:14]\nnever mind, do this',
    );
    // While the second run goes on, the interrupted message counts one try (its own run was not a
    // crash), so a crash now re-runs it once more instead of failing it.
    const id = first.type === 'stored' ? first.inboxId : -1;
    expect(getInbound(h.store.db, id)).toMatchObject({ status: 'running', tries: 1 });
    agent.pending[0]?.finish(ok('did both'));
    await h.channel.untilSent(1);
    await h.queue.whenIdle();
    // One answer for both; nothing runs a third time.
    expect(h.channel.texts()).toEqual(['did both']);
    expect(agent.calls).toHaveLength(2);
    for (const r of [first, second])
      expect(r.type === 'stored' && getInbound(h.store.db, r.inboxId)).toMatchObject({ status: 'done' });
  });

  it('interrupt: every run interrupted in a row is folded into the one that finishes', async () => {
    const agent = new FakeAgent();
    h = harness({ agent, config: { queue: { whileBusy: 'interrupt' } } });
    await h.send('a');
    await agent.untilCalls(1);
    await h.send('b');
    await agent.untilCalls(2);
    await h.send('c');
    await agent.untilCalls(3);
    expect(agent.calls[2]?.request.prompt).toMatch(/\]\na\n\n\[.*\]\nb\n\n\[.*\]\nc$/);
    agent.pending[0]?.finish(ok('abc'));
    await h.queue.whenIdle();
    expect(agent.calls).toHaveLength(3);
    expect(h.channel.texts()).toEqual(['abc']);
  });

  it('interrupt then /stop before the run has ended: the stopped messages do not run again', async () => {
    const agent = new FakeAgent();
    h = harness({ agent, config: { queue: { whileBusy: 'interrupt' } } });
    const first = await h.send('long task');
    await agent.untilCalls(1);
    // Both in one turn: the interrupted run has not finished when /stop arrives.
    const [second] = await Promise.all([h.send('other thing'), h.send('/stop')]);
    await h.queue.whenIdle();
    expect(agent.calls).toHaveLength(1);
    expect(h.channel.texts()).toEqual(['Stopped the agent. Dropped 1 waiting message.']);
    for (const r of [first, second])
      expect(r?.type === 'stored' && getInbound(h.store.db, r.inboxId)).toMatchObject({
        status: 'done',
        note: 'stopped',
      });
  });

  it('beyond maxPendingPerChat: the sender is told once, the drop is logged with ids, nothing silent', async () => {
    const agent = new FakeAgent();
    h = harness({ agent, config: { queue: { maxPendingPerChat: 2 } } });
    await h.send('running');
    await agent.untilCalls(1);
    const outcomes = [];
    for (const t of ['w1', 'w2', 'd1', 'd2', 'd3']) outcomes.push((await h.send(t)).type);
    expect(outcomes).toEqual(['stored', 'stored', 'rejected', 'rejected', 'rejected']);
    await h.channel.untilSent(1);
    expect(h.channel.texts()).toEqual([expect.stringContaining('being dropped')]);
    const drops = h.lines.filter((l) => l.msg === 'chat queue full: message dropped');
    expect(drops.map((d) => d.messageId)).toHaveLength(3);
    expect(drops.every((d) => typeof d.inboxId === 'number')).toBe(true);
    // The dropped rows are durable (dedupe) and marked as such.
    const dropped = h.store.db.prepare(`SELECT count(*) AS n FROM inbox WHERE status = 'dropped'`).get() as {
      n: number;
    };
    expect(dropped.n).toBe(3);
    // Once the queue drains below the cap, a later overflow is announced again.
    agent.pending[0]?.finish(ok('a1'));
    await agent.untilCalls(2);
    for (const t of ['x1', 'x2', 'x3']) await h.send(t);
    await h.channel.untilSent(3);
    expect(h.channel.texts().filter((t) => t.includes('being dropped'))).toHaveLength(2);
    expect(pendingForChat(h.store.db, 'console:local').map((r) => r.text)).toEqual(['x1', 'x2']);
  });

  it('a duplicate delivery is acknowledged as duplicate and never runs twice', async () => {
    h = harness();
    expect((await h.send('hi', { messageId: 'same' })).type).toBe('stored');
    expect((await h.send('hi', { messageId: 'same' })).type).toBe('duplicate');
    await h.queue.whenIdle();
    expect(h.agent.calls).toHaveLength(1);
    expect(h.channel.texts()).toEqual(['echo: hi']);
  });

  it('rejects an empty message without storing it', async () => {
    h = harness();
    expect(await h.send('   ')).toEqual({ type: 'rejected', reason: 'empty message' });
    expect((await h.queue.status()).waiting).toEqual({});
  });

  it('a store failure is reported as failed (so the channel does not acknowledge), never thrown', async () => {
    h = harness();
    h.store.db.close();
    expect(await h.send('hi')).toEqual({ type: 'failed', error: 'could not store the message' });
    expect(h.lines.some((l) => l.msg === 'could not store inbound message')).toBe(true);
  });
});

describe('RunSlots.abort', () => {
  const run = (): ActiveRun => ({
    kind: 'user',
    label: 'message',
    ids: [1],
    startedAt: 0,
    controller: new AbortController(),
    done: Promise.resolve(),
  });
  it.each<[AbortReason[], AbortReason]>([
    [['interrupt'], 'interrupt'],
    [['interrupt', 'stop'], 'stop'],
    [['interrupt', 'shutdown'], 'shutdown'],
    [['stop', 'interrupt'], 'stop'],
    [['shutdown', 'interrupt'], 'shutdown'],
    [['shutdown', 'stop'], 'stop'],
    [['stop', 'shutdown'], 'stop'],
  ])('%j → %s (the strongest reason decides what happens to the messages)', (reasons, want) => {
    const runSlots = new RunSlots(1);
    const r = run();
    runSlots.begin('console:local', r);
    for (const reason of reasons) expect(runSlots.abort('console:local', reason)).toBe(r);
    expect(r.reason).toBe(want);
    // The signal fires once, with the first reason.
    expect(r.controller.signal.reason).toBe(reasons[0]);
  });

  it('returns nothing when the chat runs nothing', () => {
    expect(new RunSlots(1).abort('console:local', 'stop')).toBeUndefined();
  });
});

describe('RunSlots: ready chats and since when they wait', () => {
  const run = (startedAt: number) => ({
    kind: 'user' as const,
    label: 'message',
    ids: [],
    startedAt,
    controller: new AbortController(),
    done: Promise.resolve(),
  });
  it('keeps the first ready time, hands out the chosen chat, and the time through its run', () => {
    let t = 10;
    const runSlots = new RunSlots(2, () => t);
    runSlots.markReady('console:a');
    t = 20;
    runSlots.markReady('console:b');
    runSlots.markReady('console:a');
    expect(runSlots.readyList()).toEqual([
      { chat: 'console:a', since: 10 },
      { chat: 'console:b', since: 20 },
    ]);
    t = 30;
    expect(runSlots.takeReady('console:b')).toBe('console:b');
    runSlots.begin('console:b', run(30));
    expect(runSlots.waitingSince('console:b')).toBe(20);
    expect(runSlots.isReady('console:b')).toBe(false);
    expect(runSlots.takeReady('console:zzz')).toBe('console:a');
    expect(runSlots.takeReady()).toBeUndefined();
  });
  it('a run that was never ready (a heartbeat) waited since it started; the time goes with the run', () => {
    const runSlots = new RunSlots(1, () => 5);
    const r = run(42);
    runSlots.begin('console:a', r);
    expect(runSlots.waitingSince('console:a')).toBe(42);
    runSlots.end('console:a', r);
    expect(runSlots.waitingSince('console:a')).toBeUndefined();
  });
});
