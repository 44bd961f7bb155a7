// The built relay (`dist/`, as `agentwire relay`) with `agents.launcher: true` over Telegram (the fake
// Bot API on 127.0.0.1): what the relay starts besides the agents starts from its launcher too, not
// from the relay. A custom command's script (`commands.<name>.run`), the voice-note transcriber
// (`media.transcribe.command`) and a heartbeat's pre-check (`heartbeat.check`, fired by `agentwire
// heartbeat` through the control socket) each report their parent, which is the relay's one
// launcher child. And over Discord (the fake Discord on 127.0.0.1), whose plug-in builds its own
// transcriber: a voice note's transcriber starts from the launcher there too. Needs `npm run build`.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  TOKEN as DISCORD_TOKEN,
  DM_CHANNEL_ID,
  type FakeDiscord,
  fileMessage,
  GUILD_ID,
  startFakeDiscord,
  USER_ID,
} from '../channels/discord/fake-discord.js';
import { dm, type FakeBotApi, startFakeBotApi, TOKEN } from '../channels/telegram/fake-bot-api.js';
import { launchersOf } from '../support/procs.js';
import { type Home, MAIN, makeHome, type Proc, spawnNode, waitFor } from './helpers.js';

const SLOW = 45_000;
const OWNER = 42;

let home: Home | undefined;
let api: FakeBotApi | undefined;
let discord: FakeDiscord | undefined;
let proc: Proc | undefined;
afterEach(async () => {
  const running = proc && proc.child.exitCode === null && proc.child.signalCode === null;
  if (running) proc?.child.kill('SIGKILL');
  if (running) await proc?.exit;
  await api?.close();
  await discord?.close();
  home?.cleanup();
  proc = undefined;
  api = undefined;
  discord = undefined;
  home = undefined;
});
beforeAll(() => {
  expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
});

/** `node -e` with `code`; its first argument is process.argv[1]. */
const nodeE = (code: string, ...args: string[]) => [process.execPath, '-e', code, ...args];

describe('the relay with agents.launcher: true: the programs it starts besides the agents', () => {
  it("a custom command's script, the transcriber and a heartbeat's check start from its launcher", {
    timeout: 3 * SLOW,
  }, async () => {
    api = await startFakeBotApi();
    home = makeHome({
      telegram: { enabled: true, apiRoot: api.url, allowFrom: [OWNER] },
      console: { enabled: false },
      agents: { launcher: true },
    });
    const checkFile = join(home.dir, 'check-parents');
    const raw = JSON.parse(readFileSync(home.configFile, 'utf8'));
    raw.commands = { whoami: { run: nodeE('process.stdout.write(`script parent ${process.ppid}`)') } };
    raw.media = {
      transcribe: { command: nodeE('process.stdout.write(`heard by ${process.ppid}`)', '{{path}}') },
    };
    // Exit 1: nothing to wake the agent for, so the heartbeat ends at its check.
    raw.heartbeat = {
      target: `telegram:${OWNER}`,
      check: nodeE(
        'require("node:fs").appendFileSync(process.argv[1], `${process.ppid}\\n`); process.exit(1)',
        checkFile,
      ),
    };
    writeFileSync(home.configFile, JSON.stringify(raw, null, 2));
    const env = { ...home.env, TELEGRAM_BOT_TOKEN: TOKEN };
    proc = spawnNode([MAIN, 'relay'], env);
    const relayPid = proc.child.pid as number;
    const replies = () => api!.callsOf('sendMessage').map((c) => String(c.params.text));

    api.push(dm(OWNER, '/whoami', 1));
    expect(await waitFor(() => replies().length > 0, SLOW), proc.stderr()).toBe(true);
    const launchers = launchersOf(relayPid);
    expect(launchers).toHaveLength(1);
    const launcher = launchers[0] as number;
    expect(launcher).not.toBe(relayPid);
    expect(replies()[0]).toBe(`script parent ${launcher}`);

    api.addFile('v1', Buffer.from('OggS-voice'), 'voice/file_1.oga');
    api.push(
      dm(OWNER, '', 2, {
        text: undefined,
        voice: { file_id: 'v1', file_unique_id: 'v', duration: 2, mime_type: 'audio/ogg', file_size: 10 },
      }),
    );
    expect(await waitFor(() => replies().length > 1, SLOW), proc.stderr()).toBe(true);
    expect(replies()[1]).toContain(`heard by ${launcher}`);

    const hb = spawnNode([MAIN, 'heartbeat', '--json'], env);
    await hb.exit;
    expect(hb.stdout(), hb.stderr()).toContain('check_quiet');
    const parents = readFileSync(checkFile, 'utf8').split('\n').filter(Boolean).map(Number);
    expect(parents.length).toBeGreaterThan(0);
    expect(new Set(parents)).toEqual(new Set([launcher]));
    expect(launchersOf(relayPid)).toEqual([launcher]);

    proc.child.kill('SIGTERM');
    expect((await proc.exit).code).toBe(0);
  });

  it("Discord's voice-note transcriber starts from the launcher", { timeout: 2 * SLOW }, async () => {
    discord = await startFakeDiscord();
    home = makeHome({
      discord: { enabled: true, apiRoot: discord.api, allowFrom: [USER_ID], guilds: [GUILD_ID] },
      console: { enabled: false },
      agents: { launcher: true },
    });
    const raw = JSON.parse(readFileSync(home.configFile, 'utf8'));
    raw.media = {
      transcribe: { command: nodeE('process.stdout.write(`heard by ${process.ppid}`)', '{{path}}') },
    };
    writeFileSync(home.configFile, JSON.stringify(raw, null, 2));
    proc = spawnNode([MAIN, 'relay'], { ...home.env, DISCORD_BOT_TOKEN: DISCORD_TOKEN });
    const relayPid = proc.child.pid as number;
    expect(await waitFor(() => discord!.live(), SLOW), proc.stderr()).toBe(true);

    const voice = Buffer.from('OggS-voice');
    discord.dispatch(
      'MESSAGE_CREATE',
      fileMessage(discord, { content: '', name: 'voice-message.ogg', bytes: voice, type: 'audio/ogg' }),
    );
    const replies = () =>
      discord!
        .callsOf('POST', new RegExp(`^/channels/${DM_CHANNEL_ID}/messages$`))
        .filter((c) => c.status === 200)
        .map((c) => String(c.body.content ?? ''));
    expect(await waitFor(() => replies().length > 0, SLOW), proc.stderr()).toBe(true);
    const launchers = launchersOf(relayPid);
    expect(launchers).toHaveLength(1);
    expect(launchers[0]).not.toBe(relayPid);
    expect(replies()[0]).toContain(`heard by ${launchers[0]}`);

    proc.child.kill('SIGTERM');
    expect((await proc.exit).code).toBe(0);
  });
});
