// `agentwire doctor` (built binary) with Discord on: the registry's plug-in check asks the fake
// Discord GET /users/@me and GET /applications/@me. A good token is named by its bot; a refused one
// fails with the fix and exit 1; the token is never printed.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { doctorChannel } from '../../ops/doctor/channel-rig.js';
import { type FakeDiscord, startFakeDiscord, TOKEN } from './fake-discord.js';

describe('agentwire doctor with Discord (built binary, fake Discord)', () => {
  let fake: FakeDiscord;
  beforeEach(async () => {
    fake = await startFakeDiscord();
  });
  afterEach(async () => {
    await fake.close();
  });

  const run = (token: string) =>
    doctorChannel({
      section: `discord: {enabled: true, apiRoot: "${fake.api}", allowFrom: ["222222222222222222"]}`,
      channel: 'discord',
      tokenVar: 'DISCORD_BOT_TOKEN',
      token,
      secret: token.split('.')[2] ?? token,
    });

  it('a good token: the bot named, the intent on, exit 0', async () => {
    const r = await run(TOKEN);
    expect(r.findings).toEqual([
      { check: 'discord', status: 'ok', message: 'bot @agent_bot answers (GET /users/@me)' },
      { check: 'discord:intents', status: 'ok', message: 'Message Content intent is on' },
    ]);
    expect(fake.callsOf('GET', /^\/users\/@me$/)).toHaveLength(1);
    expect(r.code).toBe(0);
  });

  it('a token Discord refuses: fail with the fix, exit 1', async () => {
    const r = await run(TOKEN.replace(/.{4}$/, 'zzzz'));
    expect(r.findings).toEqual([
      expect.objectContaining({ check: 'discord', status: 'fail', message: expect.stringMatching(/401/) }),
    ]);
    expect(r.code).toBe(1);
  });
});
