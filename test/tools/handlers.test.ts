// The relay's side of the tool calls, on a real store and the real media policy: argument errors,
// the per-run cap, one outbox row per call even when a crashed run is redone, a path that escapes
// refused exactly as a MEDIA: line is, tasks limited per chat, and every tool bound to its chat.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import type { ChatKey } from '../../src/core/types.js';
import { mediaPolicy } from '../../src/queue/adapters.js';
import { type Db, openDb } from '../../src/store/sqlite/db.js';
import { storeOver } from '../../src/store/sqlite/open.js';
import { rowsForKey } from '../../src/store/sqlite/outbox.js';
import { QUEUE_MIGRATIONS } from '../../src/store/sqlite/queue-schema.js';
import { tasksForChat } from '../../src/store/sqlite/tasks.js';
import { ToolError } from '../../src/tools/handlers.js';
import { createToolHost, type ToolHost } from '../../src/tools/host.js';
import { type FullDisk, fullDisk } from '../faults/full-disk.js';

const CHAT: ChatKey = 'twilio:+15550001111';
const OTHER: ChatKey = 'twilio:+15550002222';
let dir: string;
let db: Db;
let host: ToolHost;
let kicked: ChatKey[];
let changed: number;
let now: number;

function setup(tools: Record<string, unknown> = {}, over: Db = db) {
  const config = configSchema.parse({ whatsapp: { enabled: false }, tools });
  host = createToolHost({
    enabled: true,
    limits: config.tools,
    store: storeOver(over),
    mediaPolicy: mediaPolicy(config, join(dir, 'staged')),
    textRules: () => ({ limit: 1600 }),
    socket: join(dir, 'relay.sock'),
    entry: { command: process.execPath, args: ['/x/bin.js'] },
    timeZone: 'Europe/Paris',
    now: () => now,
  });
  host.bindDelivery((chat) => kicked.push(chat));
  host.onTasksChanged(() => changed++);
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'aw-tools-'));
  db = openDb(join(dir, 'db.sqlite'), QUEUE_MIGRATIONS);
  mkdirSync(join(dir, 'work'));
  kicked = [];
  changed = 0;
  now = Date.parse('2026-07-01T08:00:00Z');
  setup();
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const mint = (runKey = 'in:7', chat = CHAT) =>
  host.tokens.mint({ chat, runKey, cwd: join(dir, 'work') }, 60_000);
const call = (token: string, tool: string, args: Record<string, unknown> = {}) =>
  host.call({ token, tool, args });
const refusal = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ToolError);
  return (err as Error).message;
};

describe('tools.call', () => {
  it("send_message goes to the outbox of the run's chat, keyed by the run and the call, and starts sending", async () => {
    const token = mint();
    expect((await call(token, 'send_message', { text: 'on it' })).text).toMatch(
      /^Sent as out:1 \(9 more this run\)/,
    );
    expect(rowsForKey(db, 'tool:in:7:msg:1').map((r) => [r.chat, r.item])).toEqual([
      [CHAT, { type: 'text', text: 'on it' }],
    ]);
    expect(kicked).toEqual([CHAT]);
  });

  it('a run redone after a crash (a new token, the same run key) does not send the same message twice', async () => {
    await call(mint('in:7'), 'send_message', { text: 'on it' });
    await call(mint('in:7'), 'send_message', { text: 'on it' });
    expect(rowsForKey(db, 'tool:in:7:msg:1')).toHaveLength(1);
    await call(mint('in:8'), 'send_message', { text: 'on it' });
    expect(rowsForKey(db, 'tool:in:8:msg:1')).toHaveLength(1);
  });

  it.each([
    ['send_message', {}, /send_message: text: /],
    ['send_message', { text: '' }, /send_message: text: /],
    ['send_message', { text: 42 }, /send_message: text: /],
    ['send_message', { text: 'x', extra: 1 }, /send_message: /],
    ['send_file', {}, /send_file: path: /],
    ['schedule_task', { every: '1h' }, /schedule_task: prompt: /],
    ['cancel_task', {}, /cancel_task: id: /],
    ['no_such_tool', {}, /unknown tool no_such_tool/],
  ])('%s %j: a clear error the agent reads', async (tool, args, message) => {
    expect(await refusal(call(mint(), tool, args))).toMatch(message);
  });

  it('refuses a bad, ended or foreign token, and never acts on another chat', async () => {
    expect(await refusal(host.call({ token: 'nope.nope', tool: 'chat_info', args: {} }))).toMatch(
      /not valid/,
    );
    expect(await refusal(host.call({ tool: 'chat_info' }))).toMatch(/invalid tool call: token/);
    const token = mint();
    host.tokens.revoke(token);
    expect(await refusal(call(token, 'send_message', { text: 'x' }))).toMatch(/not valid/);
    // A task of another chat cannot be cancelled with this chat's token.
    const other = mint('in:9', OTHER);
    const made = await call(other, 'schedule_task', { prompt: 'p', every: '1h' });
    const id = /task (t[0-9a-f]+)/.exec(made.text)?.[1] as string;
    expect(await refusal(call(mint(), 'cancel_task', { id }))).toMatch(/no task/);
    expect(tasksForChat(db, OTHER)).toHaveLength(1);
    expect((await call(mint(), 'list_tasks')).text).toBe('No tasks are scheduled in this chat.');
  });

  it('caps what one run sends (tools.maxMessagesPerRun) and says so', async () => {
    setup({ maxMessagesPerRun: 2 });
    const token = mint();
    await call(token, 'send_message', { text: 'one' });
    await call(token, 'send_message', { text: 'two' });
    expect(await refusal(call(token, 'send_message', { text: 'three' }))).toMatch(
      /already sent 2 messages.*tools\.maxMessagesPerRun/,
    );
    expect(rowsForKey(db, 'tool:in:7:msg:3')).toHaveLength(0);
    // The next run has its own allowance.
    await call(mint('in:8'), 'send_message', { text: 'again' });
    expect(rowsForKey(db, 'tool:in:8:msg:1')).toHaveLength(1);
  });

  it('send_message on a store that refuses the write: the agent is told, and the send is given back', async () => {
    const disk: FullDisk = fullDisk(db as never);
    setup({}, disk.db);
    const token = mint();
    disk.fill(/INSERT INTO outbox/);
    expect(await refusal(call(token, 'send_message', { text: 'lost?' }))).toMatch(
      /^send_message: not sent: .*disk may be full.*try again/,
    );
    expect(kicked).toEqual([]);
    disk.free();
    // The refused call used neither the run's allowance nor its key: the next send is msg:1.
    expect((await call(token, 'send_message', { text: 'stored' })).text).toMatch(/9 more this run/);
    expect(rowsForKey(db, 'tool:in:7:msg:1').map((r) => r.item)).toEqual([{ type: 'text', text: 'stored' }]);
    expect(kicked).toEqual([CHAT]);
  });

  it('a credential the agent quotes (its own tool token) is masked before the row is written', async () => {
    const token = mint();
    await call(token, 'send_message', { text: `my token is ${token}.` });
    expect(rowsForKey(db, 'tool:in:7:msg:1').map((r) => r.item)).toEqual([
      { type: 'text', text: 'my token is [redacted].' },
    ]);
  });

  it('send_file: a file in the working folder goes out; a path that escapes is refused with the MEDIA: reason', async () => {
    writeFileSync(join(dir, 'work', 'chart.png'), 'png');
    writeFileSync(join(dir, 'secret.txt'), 'secret');
    const token = mint();
    expect((await call(token, 'send_file', { path: 'chart.png', caption: 'the chart' })).text).toMatch(
      /^Sent chart\.png/,
    );
    const sent = rowsForKey(db, 'tool:in:7:file:1').map((r) => r.item.type);
    expect(sent).toEqual(['text', 'file']);
    const policy = mediaPolicy(configSchema.parse({ whatsapp: { enabled: false } }), join(dir, 'staged'));
    for (const ref of ['../secret.txt', join(dir, 'secret.txt'), 'missing.png']) {
      const [media] = await policy([ref], { cwd: join(dir, 'work'), channel: 'twilio' });
      expect(media?.type).toBe('refused');
      const reason = media?.type === 'refused' ? media.reason : '';
      expect(await refusal(call(token, 'send_file', { path: ref }))).toBe(`send_file: not sent: ${reason}`);
    }
    // A refused file does not use up the run's messages.
    expect((await call(token, 'send_message', { text: 'x' })).text).toMatch(/8 more this run/);
  });

  it('schedule_task stores once per call, within the per-chat limit; cancel_task removes it; the scheduler hears of both', async () => {
    setup({ maxTasksPerChat: 1 });
    const token = mint();
    const made = await call(token, 'schedule_task', { prompt: 'water the plants', every: '2h' });
    expect(made.text).toMatch(
      /^Scheduled task t[0-9a-f]{8}: every 2h; first run 2026-07-01T10:00:00.000Z\.$/,
    );
    expect(await refusal(call(token, 'schedule_task', { prompt: 'more', every: '2h' }))).toMatch(
      /already has 1 tasks.*tools\.maxTasksPerChat/,
    );
    // The same run redone: its first schedule_task is the same call, not a new task (nor "full").
    expect((await call(mint(), 'schedule_task', { prompt: 'water the plants', every: '2h' })).text).toBe(
      made.text,
    );
    expect(tasksForChat(db, CHAT)).toHaveLength(1);
    const id = tasksForChat(db, CHAT)[0]?.id as string;
    expect((await call(token, 'list_tasks')).text).toBe(`${id}: every 2h: water the plants`);
    expect((await call(token, 'cancel_task', { id })).text).toBe(`Cancelled task ${id}.`);
    expect(tasksForChat(db, CHAT)).toEqual([]);
    expect(changed).toBe(3);
  });

  it('tools.enabled false: runs get no tool server (their argv stays as it always was)', () => {
    const off = createToolHost({
      enabled: false,
      limits: configSchema.parse({}).tools,
      store: storeOver(db),
      mediaPolicy: async () => [],
      textRules: () => ({ limit: 1600 }),
      socket: join(dir, 'relay.sock'),
      entry: { command: process.execPath, args: ['/x/bin.js'] },
      timeZone: 'UTC',
    });
    expect(off.grantor).toBeUndefined();
    const on = host.grantor?.({ chat: CHAT, sessionKey: CHAT, runKey: 'in:1', cwd: dir, timeoutMs: 1000 });
    expect(on?.server.args).toEqual(['/x/bin.js', 'mcp']);
    expect(Object.keys(on?.server.env ?? {})).toEqual([
      'AGENTWIRE_TOOLS_TOKEN',
      'AGENTWIRE_TOOLS_SOCKET',
      'AGENTWIRE_TOOLS_TIMEOUT_MS',
    ]);
    // A call may last as long as the run may, plus the token's margin.
    expect(on?.server.callTimeoutMs).toBe(61_000);
    // The run's end revokes its token.
    const token = on?.server.env.AGENTWIRE_TOOLS_TOKEN as string;
    expect(host.tokens.check(token).ok).toBe(true);
    on?.release();
    expect(host.tokens.check(token).ok).toBe(false);
  });

  it('chat_info: channel, masked chat and sender, time zone', async () => {
    const info = JSON.parse((await call(mint('schedule:x:1'), 'chat_info')).text);
    expect(info).toEqual({
      channel: 'twilio',
      chat: '…1111',
      isGroup: false,
      from: 'nobody: a scheduled run',
      timeZone: 'Europe/Paris',
      now: '2026-07-01T08:00:00.000Z',
    });
  });
});
