// An enabled channel that cannot start is a config error at its key, so `config check` and `doctor`
// agree (Telegram enabled with no token used to pass `config check` and fail `doctor`).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AGENT_KINDS } from '../../src/agents/registry.js';
import { parseConfigText } from '../../src/config/load.js';
import { configProblems } from '../../src/heartbeat/target.js';

const TOKEN = '123456789:AAbbccddeeffgghhiijjkkllmmnnooppqqr';
const dir = mkdtempSync(join(tmpdir(), 'aw-cfgch-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const problems = (text: string, env: NodeJS.ProcessEnv = {}) => {
  const r = parseConfigText(text, 'c.json5', env, AGENT_KINDS, configProblems);
  return r.ok ? [] : r.problems.map((p) => `${p.line}:${p.path}: ${p.message}`);
};

describe('channel problems at config load', () => {
  it.each([
    ['no token anywhere', '{\n telegram: {enabled: true},\n}', {}, [/^2:telegram\.botToken: no bot token/]],
    [
      'a malformed token',
      '{\n telegram: {enabled: true,\n  botToken: "nope"},\n}',
      {},
      [/^3:telegram\.botToken: .*does not look like/],
    ],
    [
      'an unreadable token file',
      `{telegram: {enabled: true, tokenFile: "${join(dir, 'absent')}"}}`,
      {},
      [/telegram\.tokenFile: telegram\.tokenFile could not be read \(ENOENT\)/],
    ],
    ['the token from the environment', '{telegram: {enabled: true}}', { TELEGRAM_BOT_TOKEN: TOKEN }, []],
    ['a token in the file', `{telegram: {enabled: true, botToken: "${TOKEN}"}}`, {}, []],
    ['telegram off, no token', '{telegram: {enabled: false}}', {}, []],
  ] as const)('%s', (_name, text, env, want) => {
    const got = problems(text, env);
    expect(got).toHaveLength(want.length);
    for (const [i, re] of want.entries()) expect(got[i]).toMatch(re);
  });

  it('`agentwire config check` (the built binary) refuses it naming file, line and key', () => {
    const file = join(dir, 'tg.json5');
    writeFileSync(file, '{\n  whatsapp: {enabled: false},\n  telegram: {enabled: true},\n}\n');
    const bin = new URL('../../dist/cli/bin.js', import.meta.url).pathname;
    const r = spawnSync(process.execPath, [bin, 'config', 'check', file], {
      env: { PATH: process.env.PATH ?? '', HOME: dir, AGENTWIRE_HOME: dir },
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`${file}:3:\\d+ telegram\\.botToken: no bot token`));
  });
});
