// edit_message, add_reaction and send_message's id, end to end but for the model: the real
// `agentwire mcp` from dist/ spoken to by the SDK's client, the relay's tool host over real SQLite in a
// temp folder, the real outbox and deliverer, and the real Telegram channel against the fake Bot API
// (the far edge). Twilio SMS, which can do neither, is refused before anything is stored.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { channelPlugin } from '../../src/channels/registry.js';
import type { Channel } from '../../src/channels/types.js';
import { configSchema } from '../../src/config/schema.js';
import { MethodRegistry } from '../../src/control/methods.js';
import { startControlServer } from '../../src/control/server.js';
import type { ChatKey } from '../../src/core/types.js';
import { createLogger } from '../../src/log.js';
import { mediaPolicy } from '../../src/queue/adapters.js';
import { Deliverer } from '../../src/queue/delivery.js';
import { registerToolsMethod } from '../../src/relay.js';
import type { Store } from '../../src/store/open.js';
import type { Fence } from '../../src/store/ownership.js';
import { type Db, openDb } from '../../src/store/sqlite/db.js';
import { storeOver } from '../../src/store/sqlite/open.js';
import { ALL_MIGRATIONS } from '../../src/store/sqlite/schema.js';
import { createToolHost, type ToolHost } from '../../src/tools/host.js';
import { type FakeBotApi, startFakeBotApi } from '../channels/telegram/fake-bot-api.js';
import { type Harness, harness, telegramConfig, until } from '../channels/telegram/harness.js';
import { inbound } from '../store/helpers.js';

const BIN = join(process.cwd(), 'dist/cli/bin.js');
const TG: ChatKey = 'telegram:42';
const SMS: ChatKey = 'twilio:+15550001111';
const log = createLogger({ level: 'silent' });

let dir: string;
let db: Db;
let store: Store;
let host: ToolHost;
let api: FakeBotApi;
let tg: Harness;
let deliverer: Deliverer;
let cleanups: (() => unknown)[];
let clients: Client[];

beforeAll(() => {
  expect(existsSync(BIN), 'build first: npm run build').toBe(true);
});

beforeEach(async () => {
  cleanups = [];
  clients = [];
  dir = mkdtempSync(join(tmpdir(), 'aw-msgtools-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  db = openDb(join(dir, 'db.sqlite'), ALL_MIGRATIONS);
  cleanups.push(() => db.close());
  store = storeOver(db);
  api = await startFakeBotApi();
  cleanups.push(() => api.close());
  tg = harness();
  cleanups.push(() => tg.cleanup());
  const channel = tg.make(telegramConfig(api.url));
  cleanups.push(() => channel.stop());
  // The channel hands what it hears to the real inbox, as the relay's queue does.
  await channel.start(async (msg) => {
    const r = await store.queue.acceptInbound(msg, { now: Date.now(), maxPending: 50 });
    return r.ok && r.value.type === 'stored'
      ? { type: 'stored', inboxId: r.value.id }
      : { type: 'duplicate' };
  });
  await until(() => channel.status().type === 'connected');
  const config = configSchema.parse({
    whatsapp: { enabled: false },
    targets: { team: 'telegram:43', pager: 'twilio:+15550003333' },
    tools: { sendTo: { team: ['telegram:42'] } },
  });
  host = createToolHost({
    enabled: true,
    limits: config.tools,
    targets: config.targets,
    store,
    mediaPolicy: mediaPolicy(config, join(dir, 'staged')),
    textRules: (name) => channelPlugin(name)?.textRules(config) ?? { limit: 4000 },
    socket: join(dir, 'relay.sock'),
    entry: { command: process.execPath, args: [BIN] },
    timeZone: 'UTC',
  });
  deliverer = new Deliverer(store.queue, new Map<string, Channel>([['telegram', channel]]), log, Date.now);
  cleanups.push(async () => {
    deliverer.stop();
    await deliverer.idle();
  });
  host.bindDelivery((chat) => deliverer.kick(chat));
  const control = new MethodRegistry();
  registerToolsMethod(control, host);
  const server = await startControlServer(join(dir, 'relay.sock'), control, log);
  cleanups.push(() => server.close());
});

afterEach(async () => {
  // What beforeEach made, last first: one that failed half-way still leaves nothing behind.
  for (const c of clients) await c.close();
  for (const undo of cleanups.reverse()) await undo();
});

/** `agentwire mcp` for one run of `chat`, as a CLI starts it. */
async function mcpFor(chat: ChatKey, runKey: string, fence?: Fence): Promise<Client> {
  const token = host.tokens.mint({ chat, runKey, cwd: dir, ...(fence && { fence }) }, 60_000);
  const client = new Client({ name: 'test', version: '0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp'],
      env: {
        PATH: process.env.PATH ?? '',
        AGENTWIRE_TOOLS_TOKEN: token,
        AGENTWIRE_TOOLS_SOCKET: join(dir, 'relay.sock'),
      },
      stderr: 'ignore',
    }),
  );
  clients.push(client);
  return client;
}

const call = async (c: Client, name: string, args: Record<string, unknown>) => {
  const r = (await c.callTool({ name, arguments: args })) as {
    isError?: boolean;
    content: { text: string }[];
  };
  return { error: r.isError === true, text: r.content[0]?.text ?? '' };
};

const outboxRows = () => (db.prepare('SELECT count(*) AS n FROM outbox').get() as { n: number }).n;

/** A person's message in the chat, as the inbox holds it (Telegram's id as the channel stores it, `<chat>:<id>`): its inbox id. */
async function received(chat: ChatKey, messageId: string): Promise<number> {
  const [channel, chatId] = [chat.slice(0, chat.indexOf(':')), chat.slice(chat.indexOf(':') + 1)];
  const r = await store.queue.acceptInbound(inbound({ channel, chatId, senderId: chatId, messageId }), {
    now: Date.now(),
    maxPending: 10,
  });
  if (!r.ok || r.value.type !== 'stored') throw new Error('not stored');
  return r.value.id;
}

describe('edit_message and add_reaction through agentwire mcp', () => {
  it('send_message answers with its id; edit_message and add_reaction reach Telegram with the provider ids', async () => {
    const inId = await received(TG, '42:77');
    const c = await mcpFor(TG, `in:${inId}`);
    expect(JSON.parse((await call(c, 'chat_info', {})).text)).toMatchObject({ messageId: `in:${inId}` });

    const sent = await call(c, 'send_message', { text: 'working on it' });
    expect(sent).toMatchObject({ error: false });
    const id = /Sent as (out:\d+)/.exec(sent.text)?.[1];
    expect(id).toBeDefined();
    await until(() => api.callsOf('sendMessage').length === 1);
    const providerId = 500; // the fake's first message id

    expect(await call(c, 'edit_message', { messageId: id, text: '**done**' })).toMatchObject({
      error: false,
      text: expect.stringContaining(`Edited ${id}`),
    });
    await until(() => api.callsOf('editMessageText').length === 1);
    expect(api.callsOf('editMessageText')[0]!.params).toMatchObject({
      chat_id: '42',
      message_id: providerId,
      text: '<b>done</b>',
      parse_mode: 'HTML',
    });

    expect(await call(c, 'add_reaction', { messageId: `in:${inId}`, emoji: '👍' })).toMatchObject({
      error: false,
    });
    await until(() => api.callsOf('setMessageReaction').length === 1);
    expect(api.callsOf('setMessageReaction')[0]!.params).toMatchObject({
      chat_id: '42',
      message_id: 77,
      reaction: [{ type: 'emoji', emoji: '👍' }],
    });
    await deliverer.idle();
    const status = db.prepare(`SELECT status FROM outbox ORDER BY id`).all() as { status: string }[];
    expect(status.map((r) => r.status)).toEqual(['sent', 'sent', 'sent']);
  });

  it('a run redone after a crash stores and sends each edit and reaction once', async () => {
    const inId = await received(TG, '42:78');
    const first = await mcpFor(TG, `in:${inId}`);
    const id = /Sent as (out:\d+)/.exec((await call(first, 'send_message', { text: 'v1' })).text)?.[1];
    await call(first, 'edit_message', { messageId: id, text: 'v2' });
    await call(first, 'add_reaction', { messageId: `in:${inId}`, emoji: '✅' });
    await until(() => api.callsOf('setMessageReaction').length === 1);
    // The same run again (the relay died after these calls): the same keys, nothing new.
    const again = await mcpFor(TG, `in:${inId}`);
    expect((await call(again, 'send_message', { text: 'v1' })).text).toContain(`Sent as ${id}`);
    await call(again, 'edit_message', { messageId: id, text: 'v2' });
    await call(again, 'add_reaction', { messageId: `in:${inId}`, emoji: '✅' });
    await deliverer.idle();
    expect(outboxRows()).toBe(3);
    expect(api.callsOf('sendMessage')).toHaveLength(1);
    expect(api.callsOf('editMessageText')).toHaveLength(1);
    expect(api.callsOf('setMessageReaction')).toHaveLength(1);
  });

  it("refuses another chat's message, a reaction that is not an emoji, and SMS: a sentence, nothing stored", async () => {
    const other = await mcpFor('telegram:43', 'in:900');
    const theirs = /Sent as (out:\d+)/.exec(
      (await call(other, 'send_message', { text: 'secret' })).text,
    )?.[1];
    await until(() => api.callsOf('sendMessage').length === 1);
    const inId = await received(TG, '42:79');
    const c = await mcpFor(TG, `in:${inId}`);
    const before = outboxRows();

    expect(await call(c, 'edit_message', { messageId: theirs, text: 'x' })).toEqual({
      error: true,
      text: `edit_message: no message ${theirs} in this chat`,
    });
    expect(await call(c, 'add_reaction', { messageId: theirs, emoji: '👍' })).toEqual({
      error: true,
      text: `add_reaction: no message ${theirs} in this chat`,
    });
    expect(await call(c, 'add_reaction', { messageId: `in:${inId}`, emoji: 'ok' })).toEqual({
      error: true,
      text: 'add_reaction: a reaction is exactly one emoji, like 👍',
    });
    expect(await call(c, 'edit_message', { messageId: `in:${inId}`, text: 'x' })).toMatchObject({
      error: true,
      text: expect.stringContaining('only messages you sent can be edited'),
    });

    const smsIn = await received(SMS, 'SM1');
    const sms = await mcpFor(SMS, `in:${smsIn}`);
    expect(await call(sms, 'edit_message', { messageId: 'out:1', text: 'x' })).toEqual({
      error: true,
      text: 'edit_message: this channel cannot edit messages',
    });
    expect(await call(sms, 'add_reaction', { messageId: `in:${smsIn}`, emoji: '👍' })).toEqual({
      error: true,
      text: 'add_reaction: this channel cannot react to messages',
    });
    await deliverer.idle();
    expect(outboxRows()).toBe(before);
    expect(api.callsOf('editMessageText')).toHaveLength(0);
    expect(api.callsOf('setMessageReaction')).toHaveLength(0);
  });

  it("send_message's to: a target this chat may write to gets it; any other name, a number, another chat: a sentence", async () => {
    const inId = await received(TG, '42:80');
    const c = await mcpFor(TG, `in:${inId}`);
    const sent = await call(c, 'send_message', { text: 'build is green', to: 'team' });
    expect(sent).toMatchObject({ error: false, text: expect.stringMatching(/^Sent as out:\d+/) });
    await until(() => api.callsOf('sendMessage').length === 1);
    expect(api.callsOf('sendMessage')[0]!.params).toMatchObject({ chat_id: '43' });
    const before = outboxRows();
    for (const [to, why] of [
      ['pager', 'this chat may not write to "pager"'],
      ['boss', '"boss" is not a name in the config\'s targets'],
      ['+15551234567', 'never a number or a chat key'],
      ['telegram:43', 'never a number or a chat key'],
    ]) {
      const r = await call(c, 'send_message', { text: 'hi', to });
      expect(r.error).toBe(true);
      expect(r.text.startsWith('send_message: not sent: ')).toBe(true);
      expect(r.text).toContain(why);
    }
    // From a chat the config does not list, the same target is refused.
    const other = await mcpFor('telegram:44', 'in:901');
    expect((await call(other, 'send_message', { text: 'hi', to: 'team' })).text).toBe(
      'send_message: not sent: this chat may not write to "team" (the config\'s tools.sendTo)',
    );
    await deliverer.idle();
    expect(outboxRows()).toBe(before);
    expect(api.callsOf('sendMessage')).toHaveLength(1);
  });

  it("a run whose chat lease moved writes nothing: the tools' writes carry the run's fence", async () => {
    const inId = await received(TG, '42:81');
    const ok = await mcpFor(TG, `in:${inId}`);
    const id = /Sent as (out:\d+)/.exec((await call(ok, 'send_message', { text: 'v1' })).text)?.[1];
    await until(() => api.callsOf('sendMessage').length === 1);
    const before = outboxRows();
    // A lease this process never held (or lost): epoch 1 of a holder the store does not know.
    const stale = await mcpFor(TG, `in:${inId}`, { chat: TG, holder: 'gone', epoch: 1 });
    for (const [tool, args] of [
      ['send_message', { text: 'late' }],
      ['edit_message', { messageId: id, text: 'late' }],
      ['add_reaction', { messageId: `in:${inId}`, emoji: '👍' }],
      ['send_message', { text: 'late', to: 'team' }],
    ] as const) {
      const r = await call(stale, tool, args);
      expect(r.error, tool).toBe(true);
      expect(r.text).toContain('this run no longer holds its chat');
    }
    await deliverer.idle();
    expect(outboxRows()).toBe(before);
  });

  it("send_card: an inline keyboard on Telegram, and a tap comes back as the chat's next message, once", async () => {
    const inId = await received(TG, '42:82');
    const c = await mcpFor(TG, `in:${inId}`);
    const r = await call(c, 'send_card', {
      title: 'Deploy?',
      body: 'Build 42 is green.',
      buttons: ['Staging', 'Prod'],
    });
    expect(r).toMatchObject({ error: false, text: expect.stringMatching(/^Sent the card as out:\d+/) });
    await until(() => api.callsOf('sendMessage').length === 1);
    const sent = api.callsOf('sendMessage')[0]!.params;
    expect(sent).toMatchObject({
      chat_id: '42',
      text: '<b>Deploy?</b>\n\nBuild 42 is green.',
      reply_markup: {
        inline_keyboard: [[{ text: 'Staging', callback_data: '1' }], [{ text: 'Prod', callback_data: '2' }]],
      },
    });
    // The person taps "Prod" (twice: Telegram may deliver an update again).
    const tap = {
      callback_query: {
        id: 'cbq-1',
        from: { id: 42, is_bot: false, first_name: 'Ann' },
        chat_instance: 'x',
        data: '2',
        message: {
          message_id: 500,
          date: 1_700_000_000,
          chat: { id: 42, type: 'private' },
          from: { id: 999, is_bot: true, first_name: 'Agent', username: 'agent_bot' },
          text: 'Deploy?',
          reply_markup: sent.reply_markup,
        },
      },
    };
    api.push(tap);
    await until(() => api.callsOf('answerCallbackQuery').length === 1);
    api.push(tap);
    await until(() => api.callsOf('answerCallbackQuery').length === 2);
    const rows = db
      .prepare(`SELECT text, sender_id, message_id FROM inbox WHERE chat = ? AND id > ? ORDER BY id`)
      .all(TG, inId) as { text: string; sender_id: string; message_id: string }[];
    expect(rows).toEqual([{ text: 'Prod', sender_id: '42', message_id: '42:tap:cbq-1' }]);
    expect(api.callsOf('answerCallbackQuery')[0]!.params).toMatchObject({ callback_query_id: 'cbq-1' });
  });

  it('send_card: a numbered list on SMS; 50 buttons is a sentence and nothing is stored', async () => {
    const smsIn = await received(SMS, 'SM9');
    const sms = await mcpFor(SMS, `in:${smsIn}`);
    expect((await call(sms, 'send_card', { title: 'Deploy?', buttons: ['Staging', 'Prod'] })).error).toBe(
      false,
    );
    const items = db.prepare(`SELECT item FROM outbox WHERE chat = ? ORDER BY id`).all(SMS) as {
      item: string;
    }[];
    expect(items.map((i) => JSON.parse(i.item))).toEqual([
      { type: 'text', text: 'Deploy?\n\n1. Staging\n2. Prod\n\nAnswer with a number.' },
    ]);
    const before = outboxRows();
    const buttons = Array.from({ length: 50 }, (_, i) => `Option ${i + 1}`);
    for (const chat of [SMS, TG]) {
      const c = chat === SMS ? sms : await mcpFor(TG, `in:${await received(TG, '42:83')}`);
      expect(await call(c, 'send_card', { title: 'Pick', buttons })).toEqual({
        error: true,
        text: 'send_card: not sent: a card has at most 10 buttons; you gave 50. Offer fewer, or ask in words.',
      });
    }
    expect(outboxRows()).toBe(before);
  });
});
