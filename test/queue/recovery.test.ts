import { afterEach, describe, expect, it } from 'vitest';
import { NOTICE } from '../../src/core/reply.js';
import { planRecovery } from '../../src/queue/recovery.js';
import { getInbound, type InboxRow, insertInbound, markRunning } from '../../src/store/sqlite/inbox.js';
import { enqueueOutbound } from '../../src/store/sqlite/outbox.js';
import { inbound, tempDb } from '../store/helpers.js';
import { FakeAgent, FakeChannel, type Harness, harness, ok } from './helpers.js';

let h: Harness;
afterEach(() => h?.cleanup());

const row = (id: number, chat: string, status: InboxRow['status'], tries: number) =>
  ({ id, chat, status, tries }) as InboxRow;

describe('planRecovery', () => {
  it.each<[string, InboxRow[], { requeue: number[]; fail: [string, number[]][]; ready: string[] }]>([
    ['nothing to do', [], { requeue: [], fail: [], ready: [] }],
    ['waiting rows just run', [row(1, 'c:a', 'pending', 0)], { requeue: [], fail: [], ready: ['c:a'] }],
    ['a first crash runs again', [row(1, 'c:a', 'running', 1)], { requeue: [1], fail: [], ready: ['c:a'] }],
    [
      'a second crash gives up',
      [row(1, 'c:a', 'running', 2)],
      { requeue: [], fail: [['c:a', [1]]], ready: [] },
    ],
    [
      'mixed chats keep their order',
      [row(1, 'c:b', 'running', 2), row(2, 'c:a', 'running', 1), row(3, 'c:b', 'pending', 0)],
      { requeue: [2], fail: [['c:b', [1]]], ready: ['c:a', 'c:b'] },
    ],
  ])('%s', (_n, rows, expected) => {
    const plan = planRecovery(rows);
    expect({ requeue: plan.requeue, fail: [...plan.fail], ready: plan.ready }).toEqual(expected);
  });
});

describe('recovery at start', () => {
  it('re-runs an interrupted message once, fails a twice-crashed one with a notice, resends unsent replies', async () => {
    const store = tempDb();
    const db = store.db;
    const id = (m: string, chatId = 'local') => {
      const r = insertInbound(db, inbound({ messageId: m, chatId, text: m }), { now: 1 });
      return r.type === 'inserted' ? r.id : -1;
    };
    const once = id('crashed once');
    const twice = id('crashed twice', 'other');
    markRunning(db, [once], 2);
    markRunning(db, [twice], 2);
    db.prepare('UPDATE inbox SET tries = 2 WHERE id = ?').run(twice);
    enqueueOutbound(db, 'console:local', 'in:0', [{ type: 'text', text: 'left unsent' }], 1);
    // A row of a channel this process does not run is left alone.
    const foreign = insertInbound(db, inbound({ channel: 'twilio', chatId: '+1555', messageId: 'f' }), {
      now: 1,
    });
    h = harness({ store });
    await h.queue.whenIdle();
    expect(h.agent.prompts()).toEqual(['crashed once']);
    expect(h.channel.texts('local')).toEqual(['left unsent', 'echo: crashed once']);
    expect(h.channel.texts('other')).toEqual([NOTICE.crashedTwice]);
    expect(getInbound(db, once)).toMatchObject({ status: 'done', tries: 2 });
    expect(getInbound(db, twice)).toMatchObject({ status: 'failed', note: 'crashed_twice' });
    expect(foreign.type === 'inserted' && getInbound(db, foreign.id)?.status).toBe('pending');
  });

  it('shutdown aborts runs past the grace period and leaves them waiting without spending a try', async () => {
    const agent = new FakeAgent();
    h = harness({ agent });
    const r = await h.send('long');
    await agent.untilCalls(1);
    await h.queue.shutdown(20);
    const id = r.type === 'stored' ? r.inboxId : -1;
    expect(getInbound(h.store.db, id)).toMatchObject({ status: 'pending', tries: 0 });
    expect(await h.send('late')).toEqual({ type: 'failed', error: 'the relay is shutting down' });
    expect(h.channel.sent).toHaveLength(0);
  });

  it('shutdown lets a run that finishes within the grace period deliver its reply', async () => {
    const agent = new FakeAgent();
    h = harness({ agent });
    await h.send('quick');
    await agent.untilCalls(1);
    const done = h.queue.shutdown(5_000);
    agent.pending[0]?.finish(ok('made it'));
    await done;
    expect(h.channel.texts()).toEqual(['made it']);
  });
});

describe('delivery', () => {
  it('retries a transient send failure and sends each chunk exactly once', async () => {
    const channel = new FakeChannel();
    channel.failNext = [{ ok: false, error: 'socket closed', retryable: true }];
    h = harness({ channel });
    await h.send('hi');
    await h.queue.whenIdle();
    expect(channel.texts()).toEqual(['echo: hi']);
    expect(h.lines.some((l) => l.msg === 'send failed; will retry')).toBe(true);
  });

  it('a permanently failed attachment becomes a text notice', async () => {
    const channel = new FakeChannel();
    h = harness({ channel, agent: new FakeAgent(() => ok('', { media: ['https://example.com/big.mp4'] })) });
    channel.failNext = [{ ok: false, error: 'media too large for the channel', retryable: false }];
    await h.send('video');
    await h.queue.whenIdle();
    expect(channel.texts()).toEqual([
      '(Could not send the attachment a link: media too large for the channel)',
    ]);
  });

  it('keeps retrying a transient failure past any number of tries while within the retry time', async () => {
    const channel = new FakeChannel();
    // The old outbox gave up after 6 tries; 20 failures within the retry time must not lose it.
    channel.failNext = Array(20).fill({ ok: false, error: 'Twilio server error 503', retryable: true });
    h = harness({ channel });
    await h.send('a');
    await h.queue.whenIdle();
    expect(channel.texts()).toEqual(['echo: a']);
    expect(h.lines.filter((l) => l.msg === 'send failed; will retry')).toHaveLength(20);
  });

  it('expires a chunk whose failures outlast the retry time, carries on, and tells the chat once', async () => {
    const channel = new FakeChannel();
    h = harness({ channel, config: { queue: { whileBusy: 'followup' } } });
    // Every failed try moves the clock 4 s on: past the harness's 10 s retry time on the 3rd.
    let failures = 0;
    const send = channel.send.bind(channel);
    channel.send = async (chatId, item) => {
      if (item.type === 'text' && item.text === 'echo: a' && failures < 10) {
        failures++;
        h.clock.now += 4000;
        return { ok: false, error: 'Twilio server error 503', retryable: true };
      }
      return send(chatId, item);
    };
    await h.send('a');
    await h.send('b');
    await h.queue.whenIdle();
    expect(failures).toBe(3);
    // The notice is written when the chunk expires, so it comes before or after b's answer depending
    // on whether b's run ended first: either order is right, each sent once and 'echo: a' never.
    expect([...channel.texts()].sort()).toEqual([
      '(Some replies could not be delivered: sending kept failing for 1 min. Ask again if you still need them.)',
      'echo: b',
    ]);
    expect(h.lines.some((l) => l.msg === 'send given up: failures outlasted the retry time')).toBe(true);
  });

  it('waits for a channel that is still connecting without spending tries, then sends', async () => {
    const channel = new FakeChannel();
    let state: 'connecting' | 'connected' = 'connecting';
    channel.status = () =>
      state === 'connecting' ? { type: 'connecting', since: 0 } : { type: 'connected', since: 0 };
    h = harness({ channel });
    await h.send('hi');
    await new Promise((r) => setTimeout(r, 50));
    expect(channel.sent).toHaveLength(0);
    state = 'connected';
    await h.queue.whenIdle();
    expect(channel.texts()).toEqual(['echo: hi']);
    const row = h.store.db.prepare('SELECT tries, status FROM outbox').get();
    expect(row).toEqual({ tries: 1, status: 'sent' });
  });
});
