// The built relay (dist/) with the Discord channel against a fake Discord on 127.0.0.1 (REST and the
// gateway WebSocket), the fake claude as a real child process, real SQLite in a temp home. Each test
// starts `agentwire relay` as a process, so a restart is a real one.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  BOT_ID,
  CHANNEL_ID,
  DM_CHANNEL_ID,
  type FakeDiscord,
  fileMessage,
  GUILD_ID,
  message,
  STRANGER_ID,
  slash,
  startFakeDiscord,
  TOKEN,
  USER_ID,
} from '../channels/discord/fake-discord.js';
import { type Home, MAIN, makeHome, type Proc, spawnNode, waitFor } from './helpers.js';

let home: Home | undefined;
let discord: FakeDiscord | undefined;
const procs: Proc[] = [];
afterEach(async () => {
  for (const p of procs.splice(0)) {
    if (p.child.exitCode === null && p.child.signalCode === null) {
      p.child.kill('SIGKILL');
      await p.exit;
    }
  }
  await discord?.close();
  discord = undefined;
  home?.cleanup();
  home = undefined;
});
beforeAll(() => {
  expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
});

async function relay(level = 'warn'): Promise<Proc> {
  const p = spawnNode([MAIN, 'relay'], {
    ...home!.env,
    DISCORD_BOT_TOKEN: TOKEN,
    AGENTWIRE_LOG_LEVEL: level,
  });
  procs.push(p);
  const up = await Promise.race([waitFor(() => discord!.live(), 45_000), p.exit.then(() => false)]);
  expect(up, `relay did not connect: ${p.stderr()}`).toBe(true);
  return p;
}

async function stop(p: Proc): Promise<void> {
  p.child.kill('SIGTERM');
  expect((await p.exit).code).toBe(0);
}

function setup(extra: Record<string, unknown> = {}) {
  home = makeHome({
    discord: { enabled: true, apiRoot: discord!.api, allowFrom: [USER_ID], guilds: [GUILD_ID], ...extra },
    console: { enabled: false },
  });
}

/** Messages the fake took (200), to one channel. */
const posts = (channel = DM_CHANNEL_ID) =>
  discord!.callsOf('POST', new RegExp(`^/channels/${channel}/messages$`)).filter((c) => c.status === 200);
const tries = (channel = DM_CHANNEL_ID) =>
  discord!.callsOf('POST', new RegExp(`^/channels/${channel}/messages$`));
const contents = (channel?: string) => posts(channel).map((c) => String(c.body.content ?? ''));
/** The relay's log files in the home, if it writes any. */
const readLogs = () => {
  const dir = join(home!.dir, 'logs');
  return existsSync(dir)
    ? readdirSync(dir)
        .map((f) => readFileSync(join(dir, f), 'utf8'))
        .join('\n')
    : '';
};
const prompts = () =>
  home!
    .events()
    .filter((e) => e.ev === 'start')
    .map((e) => e.prompt ?? '');

describe('agentwire relay with the Discord channel', () => {
  it('answers a DM through the queue and the agent with no pings allowed, identifying with only its three intents', async () => {
    discord = await startFakeDiscord();
    setup();
    // At trace level: the token must not appear in any log line, whatever the level.
    const p = await relay('trace');
    discord.dispatch('MESSAGE_CREATE', message({ content: 'hello agent' }));
    expect(await waitFor(() => posts().length > 0)).toBe(true);
    expect(contents()).toEqual(['reply: hello agent']);
    expect(posts()[0]!.body.allowed_mentions).toEqual({ parse: [] });
    expect(discord.callsOf('POST', /\/typing$/).length).toBeGreaterThan(0);
    // GUILD_MESSAGES (1 << 9) | DIRECT_MESSAGES (1 << 12) | MESSAGE_CONTENT (1 << 15)
    expect(discord.intents).toBe(37376);
    // A stranger's DM and a bot's message get nothing.
    discord.dispatch('MESSAGE_CREATE', message({ content: 'let me in', author: STRANGER_ID }));
    discord.dispatch('MESSAGE_CREATE', message({ content: 'beep', bot: true, author: '777777777777777777' }));
    discord.dispatch('MESSAGE_CREATE', message({ content: 'second' }));
    expect(await waitFor(() => posts().length > 1)).toBe(true);
    await stop(p);
    expect(contents()).toEqual(['reply: hello agent', 'reply: second']);
    expect(prompts().join('\n')).not.toContain('let me in');
    const logs = p.stdout() + p.stderr() + readLogs();
    expect(logs).toContain('discord connected');
    expect(logs).not.toContain(TOKEN);
    expect(logs).not.toContain(TOKEN.split('.')[2]);
  }, 90_000);

  it('in a server channel answers a mention or a reply to the bot, and nothing else', async () => {
    discord = await startFakeDiscord();
    setup();
    const p = await relay();
    discord.dispatch('MESSAGE_CREATE', message({ guild: GUILD_ID, content: 'just chatting' }));
    discord.dispatch('MESSAGE_CREATE', message({ guild: GUILD_ID, content: `<@${BOT_ID}> what is up` }));
    discord.dispatch('MESSAGE_CREATE', message({ guild: GUILD_ID, content: 'and this?', replyToBot: true }));
    // Another server, not in discord.guilds: dropped even with a mention.
    discord.dispatch(
      'MESSAGE_CREATE',
      message({ guild: '888888888888888888', channel: '999999999999999999', content: `<@${BOT_ID}> hi` }),
    );
    expect(await waitFor(() => posts(CHANNEL_ID).length >= 2)).toBe(true);
    await stop(p);
    const all = contents(CHANNEL_ID).join('\n');
    expect(all).toContain('what is up');
    expect(all).toContain('and this?');
    expect(prompts().join('\n')).not.toContain('just chatting');
    expect(discord.callsOf('POST', /^\/channels\/999999999999999999\//)).toHaveLength(0);
  }, 90_000);

  it('a message Discord delivers again after a relay restart runs once, and one sent while it was down is not lost', async () => {
    discord = await startFakeDiscord();
    setup();
    const first = await relay();
    const file = Buffer.from('a small note');
    const m1 = fileMessage(discord, {
      content: 'only once please',
      name: 'note.txt',
      bytes: file,
      type: 'text/plain',
    });
    discord.dispatch('MESSAGE_CREATE', m1);
    expect(await waitFor(() => posts().length === 1)).toBe(true);
    await stop(first);
    // While the relay is down: a new message, and on the resume Discord replays the whole session.
    discord.dispatch('MESSAGE_CREATE', message({ content: 'sent while down' }));
    discord.replayFrom = 0;
    const second = await relay();
    expect(discord.resumes.at(-1)?.seq).toBeGreaterThan(1);
    expect(await waitFor(() => posts().length >= 2)).toBe(true);
    // And once more after a fresh IDENTIFY (the session forgotten): the same message id again.
    discord.forgetSessions();
    discord.drop();
    expect(await waitFor(() => discord!.identifies === 2)).toBe(true);
    expect(await waitFor(() => discord!.live())).toBe(true);
    discord.dispatch('MESSAGE_CREATE', m1);
    discord.dispatch('MESSAGE_CREATE', message({ content: 'after identify' }));
    expect(await waitFor(() => posts().length >= 3)).toBe(true);
    await stop(second);
    // The first line of each: the first message also carried its attachment's note.
    expect(contents().map((c) => c.split('\n')[0])).toEqual([
      'reply: only once please',
      'reply: sent while down',
      'reply: after identify',
    ]);
    expect(prompts().map((x) => x.split('\n')[0])).toEqual([
      'only once please',
      'sent while down',
      'after identify',
    ]);
    // Dropped by its id before anything was fetched again: the attachment was downloaded once.
    expect(discord.downloads).toEqual(['note.txt']);
  }, 120_000);

  it('a dropped gateway connection resumes with the session and sequence: nothing lost, nothing twice', async () => {
    discord = await startFakeDiscord();
    setup();
    const p = await relay();
    discord.dispatch('MESSAGE_CREATE', message({ content: 'before the drop' }));
    expect(await waitFor(() => posts().length === 1)).toBe(true);
    discord.drop();
    // Sent while the socket is down: Discord holds them for the resume.
    discord.dispatch('MESSAGE_CREATE', message({ content: 'during the drop one' }));
    discord.dispatch('MESSAGE_CREATE', message({ content: 'during the drop two' }));
    expect(await waitFor(() => discord!.resumes.length === 1 && discord!.live())).toBe(true);
    discord.dispatch('MESSAGE_CREATE', message({ content: 'after the resume' }));
    const texts = ['before the drop', 'during the drop one', 'during the drop two', 'after the resume'];
    // Messages that wait together may run as one turn: each text must reach the agent, and once.
    const once = () => texts.every((t) => prompts().filter((x) => x.includes(t)).length === 1);
    expect(await waitFor(() => once() && contents().some((c) => c.includes('after the resume')))).toBe(true);
    await stop(p);
    expect(discord.identifies).toBe(1);
    expect(discord.resumes[0]!.seq).toBeGreaterThanOrEqual(2);
    expect(once()).toBe(true);
    for (const t of texts) expect(contents().filter((r) => r.includes(t))).toHaveLength(1);
  }, 90_000);

  it('takes an attachment in (downloaded under the cap) and sends one out by multipart upload', async () => {
    discord = await startFakeDiscord();
    setup();
    const out = join(home!.dir, 'out');
    mkdirSync(out);
    const png = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(64, 7)]);
    writeFileSync(join(out, 'chart.png'), png);
    const raw = JSON.parse(readFileSync(home!.configFile, 'utf8'));
    raw.media = { allowedRoots: [out] };
    writeFileSync(home!.configFile, JSON.stringify(raw));
    const p = await relay();
    discord.dispatch(
      'MESSAGE_CREATE',
      fileMessage(discord, { content: 'look at this', name: 'photo.png', bytes: png, type: 'image/png' }),
    );
    discord.dispatch('MESSAGE_CREATE', message({ content: `here media:${join(out, 'chart.png')}` }));
    expect(await waitFor(() => posts().some((c) => c.files.length > 0))).toBe(true);
    expect(await waitFor(() => posts().length >= 3)).toBe(true);
    await stop(p);
    expect(prompts()[0]).toContain(join(home!.dir, 'media', 'inbound'));
    const upload = posts().find((c) => c.files.length > 0)!;
    expect(upload.files[0]!.name).toBe('chart.png');
    expect(upload.files[0]!.bytes.equals(png)).toBe(true);
    expect(upload.body.allowed_mentions).toEqual({ parse: [] });
  }, 90_000);

  it('waits out a 429 in the rate-limit bucket and sends once; a 403 stops sends to that channel and shows in status', async () => {
    discord = await startFakeDiscord();
    setup();
    const p = await relay();
    discord.failNext('POST', /\/messages$/, {
      status: 429,
      body: { message: 'You are being rate limited.', retry_after: 0.3, global: false, code: 0 },
      headers: {
        'retry-after': '1',
        'x-ratelimit-limit': '5',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset-after': '0.3',
        'x-ratelimit-bucket': 'abcd',
        'x-ratelimit-scope': 'user',
      },
    });
    discord.dispatch('MESSAGE_CREATE', message({ content: 'rate me' }));
    expect(await waitFor(() => contents().includes('reply: rate me'))).toBe(true);
    // The first try got the 429, the REST client waited in its bucket and tried once more.
    expect(tries().map((c) => c.status)).toEqual([429, 200]);
    expect(contents().filter((c) => c === 'reply: rate me')).toHaveLength(1);
    // Now the bot loses access to the server channel.
    const missing = { status: 403, body: { message: 'Missing Access', code: 50001 } };
    discord.failNext('POST', new RegExp(`^/channels/${CHANNEL_ID}/messages$`), missing);
    discord.dispatch('MESSAGE_CREATE', message({ guild: GUILD_ID, content: `<@${BOT_ID}> first` }));
    expect(await waitFor(() => tries(CHANNEL_ID).length === 1)).toBe(true);
    const status = spawnNode([MAIN, 'status'], { ...home!.env, DISCORD_BOT_TOKEN: TOKEN });
    await status.exit;
    expect(status.stdout(), `${JSON.stringify(await status.exit)} ${status.stderr()}`).toMatch(
      /discord[\s\S]*no access to/i,
    );
    // A send nobody in that channel asked for ends at once, without asking Discord again.
    const send = spawnNode([MAIN, 'send', '--to', `discord:${CHANNEL_ID}`, '-m', 'the build is green'], {
      ...home!.env,
      DISCORD_BOT_TOKEN: TOKEN,
    });
    expect(await send.exit).toEqual({ code: 1, signal: null });
    expect(send.stderr()).toContain('may not post in this Discord channel');
    discord.dispatch(
      'MESSAGE_CREATE',
      message({ guild: GUILD_ID, channel: '555555555555555556', content: `<@${BOT_ID}> elsewhere` }),
    );
    expect(await waitFor(() => posts('555555555555555556').length === 1)).toBe(true);
    await stop(p);
    // Still shown after a restart: the mark is in the state folder.
    const again = await relay();
    const later = spawnNode([MAIN, 'status'], { ...home!.env, DISCORD_BOT_TOKEN: TOKEN });
    await later.exit;
    expect(later.stdout()).toMatch(/discord[\s\S]*no access to/i);
    await stop(again);
    // One try only: not retried, and no other send to that channel was attempted.
    expect(tries(CHANNEL_ID).map((c) => c.status)).toEqual([403]);
  }, 90_000);

  it('hostile Markdown from the agent reaches Discord neutralised', async () => {
    discord = await startFakeDiscord();
    setup();
    const p = await relay();
    const rows: [string, (s: string) => boolean][] = [
      ['@everyone look', (s) => s.includes('@\u200beveryone') && !s.includes('@everyone')],
      ['@here now', (s) => s.includes('@\u200bhere')],
      [`<@${STRANGER_ID}> ping`, (s) => s.includes(`<@${STRANGER_ID}>`)],
      ['[https://bank.example](https://evil.example/x)', (s) => s.includes('(<https://evil.example/x>)')],
    ];
    // One at a time: messages that wait together would run as one turn.
    for (const [i, [text]] of rows.entries()) {
      discord.dispatch('MESSAGE_CREATE', message({ content: text }));
      expect(await waitFor(() => posts().length > i)).toBe(true);
    }
    await stop(p);
    for (const [i, [text, ok]] of rows.entries()) {
      const sent = posts()[i];
      expect(ok(String(sent!.body.content)), `${text} → ${String(sent!.body.content)}`).toBe(true);
      expect(sent!.body.allowed_mentions).toEqual({ parse: [] });
    }
  }, 90_000);

  it('with slashCommands, registers the commands and runs one as the typed command', async () => {
    discord = await startFakeDiscord();
    setup({ slashCommands: true });
    const p = await relay();
    expect(await waitFor(() => discord!.callsOf('PUT', /^\/applications\/\d+\/commands$/).length === 1)).toBe(
      true,
    );
    const registered = discord.callsOf('PUT', /commands$/)[0]!.body as unknown as { name: string }[];
    expect(registered.map((c) => c.name)).toEqual(expect.arrayContaining(['new', 'stop', 'status', 'help']));
    discord.dispatch('INTERACTION_CREATE', slash('help'));
    expect(
      await waitFor(() => discord!.callsOf('POST', /^\/interactions\/\d+\/[^/]+\/callback$/).length === 1),
    ).toBe(true);
    expect(await waitFor(() => posts().length === 1)).toBe(true);
    // A stranger's slash command gets nothing.
    const stranger = slash('new', 'hi');
    (stranger.user as { id: string }).id = STRANGER_ID;
    discord.dispatch('INTERACTION_CREATE', stranger);
    discord.dispatch('MESSAGE_CREATE', message({ content: 'after' }));
    expect(await waitFor(() => posts().length === 2)).toBe(true);
    await stop(p);
    const callback = discord.callsOf('POST', /callback$/)[0]!.body as {
      type: number;
      data: { content: string };
    };
    expect(callback).toMatchObject({ type: 4, data: { content: '`/help`' } });
    expect(contents()[0]).toMatch(/\/new/);
    expect(discord.callsOf('POST', /callback$/)).toHaveLength(1);
    expect(prompts()).toEqual(['after']);
  }, 90_000);

  it('a Message Content intent not enabled in the portal (4014) shows in status with what to do', async () => {
    discord = await startFakeDiscord();
    discord.refuseIdentify = 4014;
    setup();
    const p = spawnNode([MAIN, 'relay'], { ...home!.env, DISCORD_BOT_TOKEN: TOKEN });
    procs.push(p);
    expect(await waitFor(() => p.stderr().includes('discord gateway refused the bot'))).toBe(true);
    const status = spawnNode([MAIN, 'status'], { ...home!.env, DISCORD_BOT_TOKEN: TOKEN });
    await status.exit;
    expect(status.stdout()).toMatch(/discord[\s\S]*degraded[\s\S]*Privileged Gateway Intents/);
    await stop(p);
  }, 90_000);

  // Each place a start waits on Discord; a SIGTERM there must end the relay at once.
  const waits: {
    on: string;
    hold: (d: FakeDiscord) => void;
    reached: (d: FakeDiscord) => boolean;
    sockets: number;
  }[] = [
    {
      on: 'GET /users/@me',
      hold: (d) => d.hold.push(/^GET \/users\/@me$/),
      reached: (d) => d.callsOf('GET', /^\/users\/@me$/).length > 0,
      sockets: 0,
    },
    {
      on: 'GET /gateway/bot',
      hold: (d) => d.hold.push(/^GET \/gateway\/bot$/),
      reached: (d) => d.callsOf('GET', /^\/gateway\/bot$/).length > 0,
      sockets: 0,
    },
    { on: 'HELLO', hold: (d) => (d.holdHello = true), reached: (d) => d.connections > 0, sockets: 1 },
    { on: 'READY', hold: (d) => (d.holdIdentify = true), reached: (d) => d.identifyTries > 0, sockets: 1 },
  ];
  it.each(waits)(
    'SIGTERM while the start waits for $on: the relay stops at once and connects no more',
    async (w) => {
      discord = await startFakeDiscord();
      w.hold(discord);
      setup();
      const p = spawnNode([MAIN, 'relay'], { ...home!.env, DISCORD_BOT_TOKEN: TOKEN });
      procs.push(p);
      expect(await waitFor(() => w.reached(discord!)), p.stderr()).toBe(true);
      // Before the fix the library reconnected at HELLO and READY, and the relay never ended.
      await stop(p);
      expect(discord.connections).toBe(w.sockets);
      expect(discord.identifyTries).toBe(w.on === 'READY' ? 1 : 0);
    },
    90_000,
  );

  it('threads as sessions: each thread is a chat with its own session, answered in the thread', async () => {
    discord = await startFakeDiscord();
    const first = '777000000000000001';
    const second = '777000000000000002';
    discord.threads.set(first, CHANNEL_ID);
    discord.threads.set(second, CHANNEL_ID);
    setup({ threadSessions: true });
    const p = await relay();
    const say = (thread: string, text: string) =>
      discord!.dispatch(
        'MESSAGE_CREATE',
        message({ guild: GUILD_ID, channel: thread, content: `<@${BOT_ID}> ${text}` }),
      );
    say(first, 'one in the first thread');
    expect(await waitFor(() => posts(first).length === 1), p.stderr()).toBe(true);
    say(second, 'one in the second thread');
    expect(await waitFor(() => posts(second).length === 1), p.stderr()).toBe(true);
    say(first, 'two in the first thread');
    expect(await waitFor(() => posts(first).length === 2), p.stderr()).toBe(true);
    await stop(p);

    // Each answer in its own thread, none in the parent channel.
    expect(contents(first)).toEqual([
      expect.stringContaining('one in the first thread'),
      expect.stringContaining('two in the first thread'),
    ]);
    expect(contents(second)).toEqual([expect.stringContaining('one in the second thread')]);
    expect(posts(CHANNEL_ID)).toEqual([]);
    // One session per thread: the first thread's second message resumes its own, the second's is new.
    const starts = home!.events().filter((e) => e.ev === 'start');
    const of = (text: string) => starts.find((e) => e.prompt?.includes(text));
    expect(of('two in the first thread')).toMatchObject({
      resume: true,
      session: of('one in the first thread')?.session,
    });
    expect(of('one in the second thread')?.session).toBeDefined();
    expect(of('one in the second thread')?.session).not.toBe(of('one in the first thread')?.session);
  }, 90_000);
});
