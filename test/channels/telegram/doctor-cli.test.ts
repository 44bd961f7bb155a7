// `agentwire doctor` (built binary) with Telegram on: the registry's plug-in check calls getMe on the
// fake Bot API. A good token is named by its bot; a rejected one fails with the fix; neither token
// is ever printed.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { doctorChannel } from '../../ops/doctor/channel-rig.js';
import { type FakeBotApi, startFakeBotApi, TOKEN } from './fake-bot-api.js';

describe('agentwire doctor with Telegram (built binary, fake Bot API)', () => {
  let api: FakeBotApi;
  beforeEach(async () => {
    api = await startFakeBotApi();
  });
  afterEach(async () => {
    await api.close();
  });

  const run = (token: string) =>
    doctorChannel({
      section: `telegram: {enabled: true, apiRoot: "${api.url}", allowFrom: [42]}`,
      channel: 'telegram',
      tokenVar: 'TELEGRAM_BOT_TOKEN',
      token,
      secret: token.split(':')[1] ?? token,
    });

  it('a good token: ok, the bot named, exit 0', async () => {
    const r = await run(TOKEN);
    expect(r.findings).toEqual([
      { check: 'telegram', status: 'ok', message: 'bot @agent_bot answers (getMe)' },
    ]);
    expect(api.callsOf('getMe')).toHaveLength(1);
    expect(r.code).toBe(0);
  });

  it('a token Telegram rejects: fail with the fix, exit 1', async () => {
    const r = await run('123456789:AAThisTokenWasRevokedLongAgo_abcdef');
    expect(r.findings).toEqual([
      expect.objectContaining({
        check: 'telegram',
        status: 'fail',
        message: expect.stringMatching(/rejected the bot token/),
      }),
    ]);
    expect(r.code).toBe(1);
  });
});
