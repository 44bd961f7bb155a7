import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BOT, dm, type FakeBotApi, groupMsg, startFakeBotApi, TOKEN } from './fake-bot-api.js';
import { type Harness, harness, telegramConfig, until } from './harness.js';

describe('Telegram channel: long polling, gating, dedupe (fake Bot API on 127.0.0.1)', () => {
  let api: FakeBotApi;
  let h: Harness;
  const stops: (() => Promise<void>)[] = [];
  beforeEach(async () => {
    api = await startFakeBotApi();
    h = harness();
  });
  afterEach(async () => {
    for (const s of stops.splice(0)) await s();
    await api.close();
    h.cleanup();
  });
  const start = async (section: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => {
    const ch = h.make(telegramConfig(api.url, section, extra));
    stops.push(() => ch.stop());
    await ch.start(h.handler);
    await until(() => ch.status().type === 'connected');
    return ch;
  };

  it('connects with getMe, shows the bot as the account, registers the chat commands, deletes a webhook', async () => {
    const ch = await start();
    const s = ch.status();
    expect(s.type === 'connected' && s.account).toBe(`@${BOT.username}`);
    // A bot's @username is public: the channel says so, and status shows it unmasked (snapshot.ts).
    expect(s.type === 'connected' && s.accountPublic).toBe(true);
    // Every chat's menu: what a member may use; the owner's private chat (42, the first allowFrom
    // entry): every command, in a chat scope of its own.
    const calls = api.callsOf('setMyCommands');
    const names = (i: number) =>
      ((calls[i]?.params.commands ?? []) as { command: string }[]).map((c) => c.command);
    expect(calls).toHaveLength(2);
    expect(calls[0]?.params.scope).toBeUndefined();
    expect(names(0)).toEqual(['new', 'stop', 'status', 'help', 'tasks', 'approvals']);
    expect(calls[1]?.params.scope).toEqual({ type: 'chat', chat_id: 42 });
    expect(names(1)).toEqual([
      'new',
      'stop',
      'status',
      'help',
      'agent',
      'think',
      'verbose',
      'tasks',
      'approve',
      'deny',
      'approvals',
    ]);
    // The long poll is the channel's one-consumer part: it starts after `start()` resolves (at once
    // without a lease, on a gain with one), so its deleteWebhook is waited for, not assumed.
    await until(() => api.callsOf('deleteWebhook').length > 0, 15_000);
    expect(api.callsOf('deleteWebhook')).toHaveLength(1);
  });

  it("adds the config's own commands after the built-ins: owner-only ones in the owner's menu alone", async () => {
    await start(
      {},
      {
        commands: {
          deploy: { run: ['/bin/true'], description: 'Deploy a branch' },
          ask: { prompt: 'x', access: 'member' },
        },
      },
    );
    const calls = api.callsOf('setMyCommands');
    const menu = (i: number) => calls[i]?.params.commands as { command: string; description: string }[];
    expect(menu(0).slice(-1)).toEqual([{ command: 'ask', description: 'asks the agent (your own command)' }]);
    expect(menu(0).map((c) => c.command)).not.toContain('deploy');
    expect(menu(1).slice(-2)).toEqual([
      { command: 'deploy', description: 'Deploy a branch' },
      { command: 'ask', description: 'asks the agent (your own command)' },
    ]);
    expect(menu(1)).toHaveLength(13);
  });

  it('passes an allowed private message on, keyed chat:message, and drops an unknown sender without a word', async () => {
    await start();
    api.push(dm(7, 'who are you?', 1));
    api.push(dm(42, 'hello agent', 5));
    await until(() => h.received.length === 1);
    const m = h.received[0]!;
    expect(m).toMatchObject({
      channel: 'telegram',
      chatId: '42',
      senderId: '42',
      messageId: '42:5',
      text: 'hello agent',
      isGroup: false,
    });
    // The stranger got nothing at all, and the log names their id (for allowFrom), never the text.
    expect(api.callsOf('sendMessage')).toHaveLength(0);
    const dropped = h.logs.find((l) => l.includes('telegram message dropped'))!;
    expect(dropped).toContain('"user":"7"');
    expect(h.logs.join('')).not.toContain('who are you');
  });

  it('persists the poll offset: a restart asks from the next update and reads nothing twice', async () => {
    const first = await start();
    const id = api.push(dm(42, 'one', 1));
    await until(() => h.received.length === 1);
    await until(
      async () =>
        (await h.db
          .prepare("SELECT value FROM channel_state WHERE channel='telegram' AND key='offset'")
          .get()) !== undefined,
    );
    await first.stop();
    const before = api.callsOf('getUpdates').length;
    await start();
    await until(() => api.callsOf('getUpdates').length > before);
    expect(api.callsOf('getUpdates')[before]!.params.offset).toBe(id + 1);
    api.push(dm(42, 'two', 2));
    await until(() => h.received.length === 2);
    expect(h.received.map((m) => m.text)).toEqual(['one', 'two']);
  });

  it('drops an update id below the offset and a message id seen before (redelivery)', async () => {
    await start();
    const id = api.push(dm(42, 'first', 1));
    await until(() => h.received.length === 1);
    // The same message again under a new update id (a re-sent webhook, a server hiccup): the inbox
    // dedupe by chat and message id answers duplicate; an old update id is never even handled.
    api.push({ ...dm(42, 'first', 1), update_id: id + 1 });
    api.push({ ...dm(42, 'stale', 9), update_id: id - 5 });
    api.push(dm(42, 'next', 2));
    await until(() => h.received.length === 2);
    expect(h.received.map((m) => m.text)).toEqual(['first', 'next']);
  });

  it('in a group runs only when addressed: @mention, /command@bot (suffix stripped), reply to the bot', async () => {
    await start({ groups: [-100123] });
    const g = -100123;
    api.push(groupMsg(g, 42, 'just chatting', 1));
    api.push(
      groupMsg(g, 42, 'hey @agent_bot look', 2, { entities: [{ type: 'mention', offset: 4, length: 10 }] }),
    );
    api.push(
      groupMsg(g, 42, '/new@agent_bot fresh start', 3, {
        entities: [{ type: 'bot_command', offset: 0, length: 14 }],
      }),
    );
    api.push(
      groupMsg(g, 42, 'and this?', 4, {
        reply_to_message: { message_id: 77, date: 1, chat: { id: g, type: 'supergroup' }, from: BOT },
      }),
    );
    api.push(groupMsg(g, 42, '@other_bot hi', 5, { entities: [{ type: 'mention', offset: 0, length: 10 }] }));
    api.push(
      groupMsg(g, 7, '@agent_bot I am not allowed', 6, {
        entities: [{ type: 'mention', offset: 0, length: 10 }],
      }),
    );
    api.push(
      groupMsg(-100999, 42, '@agent_bot wrong group', 7, {
        entities: [{ type: 'mention', offset: 0, length: 10 }],
      }),
    );
    api.push(dm(42, 'done', 8));
    await until(() => h.received.some((m) => m.text === 'done'));
    expect(h.received.map((m) => m.text)).toEqual([
      'hey @agent_bot look',
      '/new fresh start',
      'and this?',
      'done',
    ]);
    expect(h.received[0]).toMatchObject({
      chatId: String(g),
      isGroup: true,
      mentioned: true,
      messageId: `${g}:2`,
    });
  });

  it('shows a rejected token in the status, and the token never appears in the log', async () => {
    const ch = h.make(telegramConfig(api.url, { botToken: '123456789:AAWrongTokenWrongTokenWrongToken_x' }));
    stops.push(() => ch.stop());
    await ch.start(h.handler);
    await until(() => ch.status().type === 'connecting' && 'lastError' in ch.status());
    const s = ch.status();
    expect(s.type === 'connecting' && s.lastError).toMatch(/rejected the bot token/);
    expect(h.logs.join('')).not.toContain('AAWrongTokenWrongToken');
    expect(h.logs.join('')).not.toContain(TOKEN.split(':')[1]);
  });
});
