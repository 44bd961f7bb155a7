// doctor's Discord check against the fake Discord: GET /users/@me for the token, GET /applications/@me
// for the Message Content intent; never the token in what it prints.
import { afterEach, describe, expect, it } from 'vitest';
import { discordDoctor } from '../../../src/channels/discord/doctor.js';
import { resolvePaths } from '../../../src/config/paths.js';
import { configSchema } from '../../../src/config/schema.js';
import { type FakeDiscord, startFakeDiscord, TOKEN } from './fake-discord.js';

let fake: FakeDiscord | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const run = (env: NodeJS.ProcessEnv, online = true) =>
  discordDoctor({
    config: configSchema.parse({
      discord: { enabled: true, apiRoot: fake!.api, allowFrom: ['222222222222222222'] },
    }),
    paths: resolvePaths({ AGENTWIRE_HOME: '/nonexistent' }),
    env,
    online,
    timeoutMs: 10_000,
  });

describe('discord doctor', () => {
  it('a good token: the bot answers, and the intent is on', async () => {
    fake = await startFakeDiscord();
    const checks = await run({ DISCORD_BOT_TOKEN: TOKEN });
    expect(checks).toEqual([
      { check: 'discord', status: 'ok', message: 'bot @agent_bot answers (GET /users/@me)' },
      { check: 'discord:intents', status: 'ok', message: 'Message Content intent is on' },
    ]);
    expect(fake.callsOf('GET', /^\/users\/@me$/)).toHaveLength(1);
  });

  it('a token Discord refuses fails with a fix, and is never printed', async () => {
    fake = await startFakeDiscord();
    const wrong = TOKEN.replace(/.$/, 'x');
    const checks = await run({ DISCORD_BOT_TOKEN: wrong });
    expect(checks[0]).toMatchObject({
      check: 'discord',
      status: 'fail',
      message: expect.stringMatching(/401/),
    });
    expect(JSON.stringify(checks)).not.toContain(wrong);
  });

  it('the intent switched off in the portal is a failure that says where to switch it on', async () => {
    fake = await startFakeDiscord();
    fake.failNext('GET', /^\/applications\/@me$/, { status: 200, body: { id: '1', name: 'a', flags: 0 } });
    const checks = await run({ DISCORD_BOT_TOKEN: TOKEN });
    expect(checks[1]).toMatchObject({ status: 'fail', fix: expect.stringMatching(/Message Content Intent/) });
  });

  it('offline: only the token shape, no request', async () => {
    fake = await startFakeDiscord();
    expect(await run({ DISCORD_BOT_TOKEN: TOKEN }, false)).toEqual([
      { check: 'discord', status: 'ok', message: 'bot token set (not checked: offline)' },
    ]);
    expect(fake.calls).toHaveLength(0);
  });
});
