// The real queue over real agent runs: runCommandReply spawning the fake claude as child processes,
// real SQLite, the real media policy. Only the channel (the far edge) is a recording fake.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NOTICE } from '../../src/core/reply.js';
import type { Queue } from '../../src/queue/queue.js';
import { createQueue, openDirectRunner } from '../../src/relay.js';
import { type Db, openDb } from '../../src/store/sqlite/db.js';
import { sqliteFile, storeOver } from '../../src/store/sqlite/open.js';
import { rowsForKey } from '../../src/store/sqlite/outbox.js';
import { QUEUE_MIGRATIONS } from '../../src/store/sqlite/queue-schema.js';
import { getSession, saveSession } from '../../src/store/sqlite/sessions.js';
import { FakeChannel } from '../queue/helpers.js';
import { inbound } from '../store/helpers.js';
import { alive, type Home, makeHome, maxOverlap, ROOT, waitFor } from './helpers.js';

let home: Home;
let db: Db;
let queue: Queue;
let channel: FakeChannel;
let seq = 0;

function setup(extra: Record<string, unknown> = {}, limit = 1600) {
  home = makeHome(extra);
  const ctx = home.ctx();
  db = openDb(sqliteFile(ctx.paths.home), QUEUE_MIGRATIONS);
  channel = new FakeChannel('twilio', limit);
  queue = createQueue(ctx, storeOver(db), new Map([['twilio', channel]]));
  void queue.start();
  return ctx;
}

const send = (text: string, chatId = '+15550000001') =>
  queue.handleInbound(inbound({ channel: 'twilio', chatId, senderId: chatId, messageId: `e${++seq}`, text }));

afterEach(async () => {
  await queue?.shutdown(0);
  if (db?.isOpen) db.close();
  home?.cleanup();
});

describe('queue with real agent processes', () => {
  it('keeps per-chat order: one CLI at a time in a chat, runs in arrival order (followup)', async () => {
    setup({ queue: { whileBusy: 'followup' } });
    for (const t of ['first sleep:150', 'second', 'third', 'fourth']) await send(t);
    await queue.whenIdle();
    const starts = home.events().filter((e) => e.ev === 'start');
    expect(starts.map((e) => e.prompt)).toEqual(['first sleep:150', 'second', 'third', 'fourth']);
    expect(maxOverlap(home.events())).toBe(1);
    expect(channel.texts()).toEqual([
      'reply: first sleep:150',
      'reply: second',
      'reply: third',
      'reply: fourth',
    ]);
    // One session, resumed by every later run.
    expect(starts.map((e) => e.resume)).toEqual([false, true, true, true]);
    expect(new Set(starts.map((e) => e.session)).size).toBe(1);
  });

  it('50 chats at once: at most maxConcurrentRuns CLIs alive, every chat answered exactly once', async () => {
    setup({ queue: { maxConcurrentRuns: 4 } });
    for (let c = 0; c < 50; c++) await send(`hello ${c} sleep:300`, `+1555000${String(c).padStart(4, '0')}`);
    await queue.whenIdle();
    const events = home.events();
    expect(events.filter((e) => e.ev === 'start')).toHaveLength(50);
    expect(maxOverlap(events)).toBe(4);
    for (let c = 0; c < 50; c++) {
      expect(channel.texts(`+1555000${String(c).padStart(4, '0')}`)).toEqual([`reply: hello ${c} sleep:300`]);
    }
    expect(await queue.status()).toMatchObject({ active: [], waiting: {}, unsentReplies: 0 });
  });

  it('collect: messages sent during a run are answered by one next run', async () => {
    setup();
    await send('first sleep:600');
    await waitFor(() => home.events().some((e) => e.ev === 'start'));
    for (const t of ['a', 'b', 'c']) await send(t);
    await queue.whenIdle();
    const prompts = home
      .events()
      .filter((e) => e.ev === 'start')
      .map((e) => e.prompt ?? '');
    expect(prompts).toHaveLength(2);
    expect(prompts[1]).toMatch(
      /^\[Message from \+15550000001 at \d\d:\d\d\]\na\n\n\[Message from .*\]\nb\n\n\[Message from .*\]\nc$/,
    );
    expect(channel.texts()).toHaveLength(2);
  });

  it('interrupt: a new message kills the running CLI and its process group, then runs', async () => {
    setup({ queue: { whileBusy: 'interrupt' } });
    await send('long job sleepalone:60000 grandchild');
    await waitFor(() => home.events().some((e) => e.ev === 'grandchild'));
    const first = home.events().find((e) => e.ev === 'start');
    const grandchild = home.events().find((e) => e.ev === 'grandchild')?.child as number;
    await send('do this instead');
    await queue.whenIdle();
    expect(alive(first?.pid as number)).toBe(false);
    expect(alive(grandchild)).toBe(false);
    // The interrupted message is not lost: it runs again with the new one, as one prompt.
    const prompts = home
      .events()
      .filter((e) => e.ev === 'start')
      .map((e) => e.prompt ?? '');
    expect(prompts).toHaveLength(2);
    expect(prompts[1]).toMatch(
      /^\[Message from \+15550000001 at \d\d:\d\d\]\nlong job sleepalone:60000 grandchild\n\n\[Message from \+15550000001 at \d\d:\d\d\]\ndo this instead$/,
    );
    expect(channel.texts()).toEqual([`reply: ${prompts[1]}`]);
  });

  it('interrupt, then a relay stop during the folded run: the next start runs both messages once', async () => {
    const ctx = setup({ queue: { whileBusy: 'interrupt' } });
    await send('long job sleeponce:60000');
    await waitFor(() => home.events().some((e) => e.ev === 'sleep'));
    await send('do this instead');
    await waitFor(() => home.events().filter((e) => e.ev === 'sleep').length === 2);
    await queue.shutdown(0);
    expect(channel.texts()).toEqual([]);
    // Nothing was answered and nothing is lost: both wait for the next start, no try spent.
    const rows = db.prepare(`SELECT text, status, tries FROM inbox ORDER BY id`).all();
    expect(rows).toEqual([
      { text: 'long job sleeponce:60000', status: 'pending', tries: 0 },
      { text: 'do this instead', status: 'pending', tries: 0 },
    ]);
    queue = createQueue(ctx, storeOver(db), new Map([['twilio', channel]]));
    await queue.start();
    await queue.whenIdle();
    const prompts = home
      .events()
      .filter((e) => e.ev === 'start')
      .map((e) => e.prompt ?? '');
    expect(prompts).toHaveLength(3);
    expect(prompts[2]).toBe(prompts[1]);
    expect(prompts[2]).toMatch(/\nlong job sleeponce:60000\n\n\[Message from .*\]\ndo this instead$/);
    expect(channel.texts()).toEqual([`reply: ${prompts[2]}`]);
    expect(db.prepare(`SELECT DISTINCT status FROM inbox`).all()).toEqual([{ status: 'done' }]);
  });

  it('/stop kills the chat CLI and its process group within a second', async () => {
    setup();
    await send('forever sleep:60000 grandchild');
    await waitFor(() => home.events().some((e) => e.ev === 'grandchild'));
    const cli = home.events().find((e) => e.ev === 'start')?.pid as number;
    const grandchild = home.events().find((e) => e.ev === 'grandchild')?.child as number;
    expect(alive(cli) && alive(grandchild)).toBe(true);
    const stoppedAt = Date.now();
    expect(await send('/stop')).toEqual({ type: 'command' });
    const gone = await waitFor(() => !alive(cli) && !alive(grandchild), 1000);
    const took = Date.now() - stoppedAt;
    expect(gone, `process group still alive after ${took} ms`).toBe(true);
    await queue.whenIdle();
    expect(channel.texts()).toEqual(['Stopped the agent.']);
  });

  it('a stale stored session is retried once fresh, with the user told', async () => {
    setup();
    saveSession(db, 'twilio:+15550000001', 'claude', '9f0e8d7c-6b5a-4c3d-8e2f-1a0b9c8d7e6f', Date.now());
    await send('where were we');
    await queue.whenIdle();
    const starts = home.events().filter((e) => e.ev === 'start');
    expect(starts.map((e) => e.resume)).toEqual([true, false]);
    expect(channel.texts()).toEqual([`${NOTICE.contextReset}\n\nreply: where were we`]);
  });

  it('a first run that failed signed out: the next message starts fresh with no false "context was reset"', async () => {
    setup();
    await send('hello authfail');
    await queue.whenIdle();
    await send('hello again');
    await queue.whenIdle();
    const starts = home.events().filter((e) => e.ev === 'start');
    // The id the failed run chose is tried once (it might have held work), found stale, dropped.
    expect(starts.map((e) => e.resume)).toEqual([false, true, false]);
    expect(starts[1]?.session).toBe(starts[0]?.session);
    expect(starts[2]?.session).not.toBe(starts[0]?.session);
    const texts = channel.texts();
    expect(texts).toHaveLength(2);
    expect(texts[0]).toMatch(/sign in|log in|authenticat/i);
    expect(texts[1]).toBe('reply: hello again');
    expect(getSession(db, 'twilio:+15550000001', 'claude')).toMatchObject({
      sessionId: starts[2]?.session,
      confirmed: true,
    });
  });

  it('a crashing CLI becomes one short sentence, with no stack trace', async () => {
    setup();
    await send('please crash');
    await queue.whenIdle();
    const [text] = channel.texts();
    expect(text).toMatch(/code 3/);
    expect(text).not.toMatch(/at main|simulated|\{/);
  });

  it('MEDIA: a file in the workspace is sent; one outside is refused with a notice', async () => {
    const ctx = setup();
    mkdirSync(ctx.paths.workspace, { recursive: true });
    writeFileSync(join(ctx.paths.workspace, 'chart.png'), 'png');
    await send('chart media:./chart.png');
    await send('secrets media:/etc/passwd');
    await queue.whenIdle();
    expect(channel.sent.map((s) => s.item.type)).toEqual(['text', 'file', 'text']);
    expect(channel.sent[1]?.item).toMatchObject({
      type: 'file',
      fileName: 'chart.png',
      mimeType: 'image/png',
    });
    expect(channel.texts()[2]).toContain('(Attachment not sent: /etc/passwd:');
  });

  it('a flood of output is chunked within the channel limit and capped', async () => {
    setup({}, 1600);
    await send('flood:200000');
    await queue.whenIdle();
    const texts = channel.texts();
    expect(texts.length).toBeLessThanOrEqual(30);
    for (const t of texts) expect(t.length).toBeLessThanOrEqual(1600);
    expect(texts.at(-1)).toContain('Reply cut after');
  });

  it('a message longer than queue.maxPromptChars is refused with a notice; the agent never sees it (D26)', async () => {
    setup({ queue: { maxPromptChars: 1000 } });
    await send('x'.repeat(1500));
    await queue.whenIdle();
    expect(home.events().filter((e) => e.ev === 'start')).toHaveLength(0);
    expect(channel.texts()).toEqual([
      'Your message was not given to the agent: it is 1,500 characters and the limit is 1,000. ' +
        'Send the text as a file instead (the agent gets the file), or send a shorter message.',
    ]);
    // The chat goes on: the next message runs as usual.
    await send('short one');
    await queue.whenIdle();
    expect(channel.texts().at(-1)).toBe('reply: short one');
  });

  it('collected messages that together pass queue.maxPromptChars are split over runs, none lost', async () => {
    setup({ queue: { maxPromptChars: 1000 } });
    await send('first sleep:600');
    await waitFor(() => home.events().some((e) => e.ev === 'start'));
    for (const c of ['a', 'b', 'c', 'd']) await send(c.repeat(400));
    await queue.whenIdle();
    const prompts = home
      .events()
      .filter((e) => e.ev === 'start')
      .map((e) => e.prompt ?? '');
    expect(prompts.length).toBeGreaterThanOrEqual(3);
    for (const p of prompts) expect(p.length).toBeLessThanOrEqual(1000);
    // Each message reached the agent exactly once, in order.
    const joined = prompts.slice(1).join('\n');
    for (const c of ['a', 'b', 'c', 'd']) expect(joined.split(c.repeat(400)).length - 1).toBe(1);
    expect(joined.indexOf('a'.repeat(400))).toBeLessThan(joined.indexOf('d'.repeat(400)));
  });

  it('the run log line carries the output size, and says when the output cap cut it (D12)', async () => {
    const ctx = setup();
    await send('hello');
    // 11 MB in one line: past the 10 MB stdout cap, so the CLI's output is cut.
    await send('flood:11000000');
    await queue.whenIdle();
    const finished = ctx.lines.filter((l) => l.msg === 'run finished');
    expect(finished).toHaveLength(2);
    expect(finished[0]).toMatchObject({ outputTruncated: false });
    expect(finished[0]?.outputBytes).toBeGreaterThan(100);
    expect(finished[1]).toMatchObject({ outputTruncated: true });
    expect(finished[1]?.outputBytes).toBeGreaterThan(11_000_000);
  }, 30_000);
});

describe('pi session files with the real pi spec (a replayed pi capture as the CLI)', () => {
  it('a deleted session file starts a fresh session and the chat is told; an existing one is resumed', async () => {
    const record = join(tmpdir(), `aw-pi-record-${process.pid}-${++seq}.json`);
    setup({
      agent: {
        kind: 'pi',
        command: [process.execPath, join(ROOT, 'test/fixtures/replay-cli.mjs')],
        env: { REPLAY_CAPTURE: join(ROOT, 'fixtures/agents/pi/new.json'), REPLAY_RECORD: record },
      },
    });
    const sessionArg = () => {
      const argv = (JSON.parse(readFileSync(record, 'utf8')) as { argv: string[] }).argv;
      return argv[argv.indexOf('--session') + 1] as string;
    };
    try {
      await send('one');
      await queue.whenIdle();
      const file = sessionArg();
      expect(getSession(db, 'twilio:+15550000001', 'pi')).toMatchObject({ sessionId: file, confirmed: true });
      // What pi does on its first run: the file exists from now on.
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, '{"type":"session"}\n');
      await send('two');
      await queue.whenIdle();
      expect(sessionArg()).toBe(file);
      rmSync(file);
      await send('three');
      await queue.whenIdle();
      const fresh = sessionArg();
      expect(fresh).not.toBe(file);
      const texts = channel.texts();
      expect(texts).toHaveLength(3);
      expect(texts.slice(0, 2).some((t) => t.includes(NOTICE.contextReset))).toBe(false);
      expect(texts[2]?.startsWith(`${NOTICE.contextReset}\n\nHere is your chart.`)).toBe(true);
      expect(getSession(db, 'twilio:+15550000001', 'pi')?.sessionId).toBe(fresh);
    } finally {
      rmSync(record, { force: true });
    }
  });
});

describe('openDirectRunner (no relay running)', () => {
  it('runs in the chat session and leaves what it delivers in the outbox for the relay', async () => {
    home = makeHome();
    const ctx = home.ctx();
    const direct = await openDirectRunner(ctx);
    try {
      const out = await direct.runner.runIfIdle('twilio:+15550000001', 'check in', {
        allowNewSession: true,
        touchIdle: false,
        label: 'heartbeat',
      });
      expect(out).toMatchObject({ type: 'ran', result: { type: 'ok', text: 'reply: check in' } });
      await direct.runner.deliver('twilio:+15550000001', 'hb-1', 'All good?', []);
    } finally {
      await direct.close();
    }
    const check = openDb(sqliteFile(ctx.paths.home), QUEUE_MIGRATIONS);
    expect(rowsForKey(check, 'sys:hb-1')).toEqual([
      expect.objectContaining({ status: 'pending', item: { type: 'text', text: 'All good?' } }),
    ]);
    expect(getSession(check, 'twilio:+15550000001', 'claude')).toBeDefined();
    check.close();
  });
});
