// `agentwire doctor` (built binary) with Telegram on: the registry's plug-in check calls getMe on the
// fake Bot API. A good token is named by its bot; a rejected one fails with the fix; neither token
// is ever printed.
import { spawn } from 'node:child_process';
import { dirname } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLAUDE_OK, fakeCli, setup } from '../../ops/doctor/helpers.js';
import { type FakeBotApi, startFakeBotApi, TOKEN } from './fake-bot-api.js';

const bin = new URL('../../../dist/cli/main.js', import.meta.url).pathname;

/** Asynchronous, so the fake Bot API in this process can answer while the binary runs. */
function doctorJson(env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, 'doctor', '--json'], {
      env: { ...env, PATH: `${env.PATH}:${dirname(process.execPath)}` },
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.on('close', (code) => resolve({ code, out }));
  });
}

type Finding = { check: string; status: string; message: string; fix?: string };

describe('agentwire doctor with Telegram (built binary, fake Bot API)', () => {
  let api: FakeBotApi;
  beforeEach(async () => {
    api = await startFakeBotApi();
  });
  afterEach(async () => {
    await api.close();
  });

  const run = async (token: string) => {
    const s = setup(
      `{whatsapp: {enabled: false}, console: {port: 0}, telegram: {enabled: true, apiRoot: "${api.url}", allowFrom: [42]}}`,
    );
    fakeCli(s, 'claude', CLAUDE_OK);
    const r = await doctorJson({ ...s.env, TELEGRAM_BOT_TOKEN: token });
    expect(r.out).not.toContain(token.split(':')[1]);
    const json = JSON.parse(r.out.slice(r.out.indexOf('{'))) as { ok: boolean; findings: Finding[] };
    return { code: r.code, telegram: json.findings.filter((f) => f.check.startsWith('telegram')) };
  };

  it('a good token: ok, the bot named, exit 0', async () => {
    const r = await run(TOKEN);
    expect(r.telegram).toEqual([
      { check: 'telegram', status: 'ok', message: 'bot @agent_bot answers (getMe)' },
    ]);
    expect(api.callsOf('getMe')).toHaveLength(1);
    expect(r.code).toBe(0);
  });

  it('a token Telegram rejects: fail with the fix, exit 1', async () => {
    const r = await run('123456789:AAThisTokenWasRevokedLongAgo_abcdef');
    expect(r.telegram).toEqual([
      expect.objectContaining({
        check: 'telegram',
        status: 'fail',
        message: expect.stringMatching(/rejected the bot token/),
      }),
    ]);
    expect(r.code).toBe(1);
  });
});
