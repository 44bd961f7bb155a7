import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { channelRedactPaths } from '../../../src/channels/registry.js';
import { telegramPlugin } from '../../../src/channels/telegram/plugin.js';
import { resolvePaths } from '../../../src/config/paths.js';
import { configSchema } from '../../../src/config/schema.js';
import { createLogger, registerRedactPaths } from '../../../src/log.js';
import { type FakeBotApi, startFakeBotApi, TOKEN } from './fake-bot-api.js';

describe('telegram doctor: getMe with the token', () => {
  let api: FakeBotApi;
  beforeEach(async () => {
    api = await startFakeBotApi();
  });
  afterEach(async () => {
    await api.close();
  });
  const run = (section: Record<string, unknown>, online = true) =>
    telegramPlugin.doctor!({
      config: configSchema.parse({
        telegram: { enabled: true, apiRoot: api.url, allowFrom: [42], ...section },
      }),
      paths: resolvePaths({ AGENTWIRE_HOME: '/nonexistent' }),
      env: {},
      online,
      timeoutMs: 5000,
    });

  it('a good token: ok, naming the bot', async () => {
    const checks = await run({ botToken: TOKEN });
    expect(checks).toEqual([{ check: 'telegram', status: 'ok', message: 'bot @agent_bot answers (getMe)' }]);
    expect(api.callsOf('getMe')).toHaveLength(1);
  });

  it('a token Telegram rejects: a clear failure with the fix, and the token is not in it', async () => {
    const bad = '123456789:AAThisIsNotTheRightTokenAtAll_xyz';
    const [c] = await run({ botToken: bad });
    expect(c).toMatchObject({
      check: 'telegram',
      status: 'fail',
      message: expect.stringMatching(/rejected the bot token/),
    });
    expect(c!.fix).toMatch(/BotFather/);
    expect(JSON.stringify(c)).not.toContain('AAThisIsNot');
  });

  it('no token: fail without calling Telegram; offline: no call either', async () => {
    expect((await run({}))[0]).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(/no bot token/),
    });
    expect((await run({ botToken: TOKEN }, false))[0]).toMatchObject({
      status: 'ok',
      message: expect.stringMatching(/offline/),
    });
    expect(api.callsOf('getMe')).toHaveLength(0);
  });

  it('Telegram unreachable: a warning, not a verdict on the token', async () => {
    await api.close();
    const [c] = await run({ botToken: TOKEN });
    expect(c).toMatchObject({ status: 'warn', message: expect.stringMatching(/unreachable/) });
  });
});

describe('log redaction of the Telegram secrets', () => {
  it('masks botToken and secretToken fields and the webhook header', () => {
    // The paths are the plug-in's (logRedactPaths), registered as the relay does before its logger.
    registerRedactPaths(channelRedactPaths());
    const lines: string[] = [];
    const log = createLogger({
      destination: new Writable({
        write(c, _e, cb) {
          lines.push(String(c));
          cb();
        },
      }),
    });
    log.info(
      {
        botToken: TOKEN,
        cfg: { secretToken: 'hook-secret-value-1' },
        headers: { 'x-telegram-bot-api-secret-token': 'hdr-secret-1' },
      },
      'x',
    );
    const out = lines.join('');
    expect(out).not.toContain(TOKEN);
    expect(out).not.toContain('hook-secret-value-1');
    expect(out).not.toContain('hdr-secret-1');
  });
});
