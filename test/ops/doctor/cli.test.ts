// The built binary: exit codes, the rendered text and --json, with a good and a broken setup.
import { spawnSync } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLAUDE_OK, fakeCli, setup } from './helpers.js';

const bin = new URL('../../../dist/cli/bin.js', import.meta.url).pathname;
const run = (env: NodeJS.ProcessEnv, args: string[] = []) =>
  spawnSync(process.execPath, [bin, 'doctor', ...args], {
    env: { ...env, PATH: `${env.PATH}:${dirname(process.execPath)}` },
    encoding: 'utf8',
  });

describe('agentwire doctor (built binary)', () => {
  it('exits 0 and says all is well when every check passes', () => {
    const s = setup();
    fakeCli(s, 'claude', CLAUDE_OK);
    const r = run(s.env);
    expect(r.stdout).toContain('All is well.');
    expect(r.status).toBe(0);
  });

  it('exits 1 listing each problem with its fix, and --json carries the same', () => {
    const s = setup(
      '{whatsapp: {enabled: false}, console: {port: 0}, twilio: {authToken: "do-not-print-me-1"}}',
    );
    chmodSync(s.home, 0o750);
    chmodSync(join(s.home, 'agentwire.json5'), 0o644);
    const r = run(s.env);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('[FAIL] permissions');
    expect(r.stdout).toContain(`fix: chmod 700 ${s.home}`);
    // The token is written out in a 0644 config file: that is a finding of its own.
    expect(r.stdout).toContain(`fix: chmod 600 ${s.home}/agentwire.json5`);
    expect(r.stdout).toContain('[FAIL] agent:claude');
    expect(r.stdout).toMatch(/3 problems, 0 warnings\./);
    expect(r.stdout + r.stderr).not.toContain('do-not-print-me-1');
    const j = run(s.env, ['--json']);
    expect(j.status).toBe(1);
    const parsed = JSON.parse(j.stdout) as { ok: boolean; findings: { check: string; status: string }[] };
    expect(parsed.ok).toBe(false);
    expect(parsed.findings.filter((f) => f.status === 'fail').map((f) => f.check)).toEqual([
      'permissions',
      'permissions',
      'agent:claude',
    ]);
  });
});
