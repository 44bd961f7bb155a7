// `agentwire doctor` (built binary) with Discord on: the registry's plug-in check asks the fake
// Discord GET /users/@me and GET /applications/@me. A good token is named by its bot; a refused one
// fails with the fix and exit 1; the token is never printed.
import { spawn } from 'node:child_process';
import { dirname } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLAUDE_OK, fakeCli, setup } from '../../ops/doctor/helpers.js';
import { type FakeDiscord, startFakeDiscord, TOKEN } from './fake-discord.js';

const bin = new URL('../../../dist/cli/main.js', import.meta.url).pathname;

/** Asynchronous, so the fake Discord in this process can answer while the binary runs. */
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

describe('agentwire doctor with Discord (built binary, fake Discord)', () => {
  let fake: FakeDiscord;
  beforeEach(async () => {
    fake = await startFakeDiscord();
  });
  afterEach(async () => {
    await fake.close();
  });

  const run = async (token: string) => {
    const s = setup(
      `{whatsapp: {enabled: false}, console: {port: 0}, discord: {enabled: true, apiRoot: "${fake.api}", allowFrom: ["222222222222222222"]}}`,
    );
    fakeCli(s, 'claude', CLAUDE_OK);
    const r = await doctorJson({ ...s.env, DISCORD_BOT_TOKEN: token });
    expect(r.out).not.toContain(token.split('.')[2]);
    const json = JSON.parse(r.out.slice(r.out.indexOf('{'))) as { ok: boolean; findings: Finding[] };
    return { code: r.code, discord: json.findings.filter((f) => f.check.startsWith('discord')) };
  };

  it('a good token: the bot named, the intent on, exit 0', async () => {
    const r = await run(TOKEN);
    expect(r.discord).toEqual([
      { check: 'discord', status: 'ok', message: 'bot @agent_bot answers (GET /users/@me)' },
      { check: 'discord:intents', status: 'ok', message: 'Message Content intent is on' },
    ]);
    expect(fake.callsOf('GET', /^\/users\/@me$/)).toHaveLength(1);
    expect(r.code).toBe(0);
  });

  it('a token Discord refuses: fail with the fix, exit 1', async () => {
    const r = await run(TOKEN.replace(/.{4}$/, 'zzzz'));
    expect(r.discord).toEqual([
      expect.objectContaining({ check: 'discord', status: 'fail', message: expect.stringMatching(/401/) }),
    ]);
    expect(r.code).toBe(1);
  });
});
