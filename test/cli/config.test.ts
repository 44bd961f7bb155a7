// Runs the built binary, as a user would.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const bin = new URL('../../dist/cli/bin.js', import.meta.url).pathname;
let home: string;

function run(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [bin, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: home, AGENTWIRE_HOME: home, ...env },
    encoding: 'utf8',
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'aw-cli-'));
  execFileSync(process.execPath, ['-e', `require('node:fs').accessSync(${JSON.stringify(bin)})`]);
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('agentwire config', () => {
  it('check with no file at all says so: the defaults are in use', () => {
    const r = run(['config', 'check']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      `No config file found at ${join(home, 'agentwire.json5')}; the defaults are in use.`,
    );
    expect(r.stdout).not.toContain(': ok');
    expect(r.stdout).toContain('agent: claude');
  });

  it('check of a file that exists says ok', () => {
    const file = join(home, 'good.json5');
    writeFileSync(file, '{agent: {kind: "codex"}}');
    expect(run(['config', 'check', file]).stdout).toContain(`${file}: ok`);
  });

  it('check names a missing comma and a likely key (through the binary)', () => {
    const file = join(home, 'typo.json5');
    writeFileSync(file, '{\n  agent: {kind: "codex"}\n  queue: {maxConcurentRuns: 2},\n}\n');
    const r = run(['config', 'check', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${file}:2:25 (root): missing comma after the previous value`);
    writeFileSync(file, '{\n  agent: {kind: "codex"},\n  queue: {maxConcurentRuns: 2},\n}\n');
    expect(run(['config', 'check', file]).stderr).toContain('did you mean maxConcurrentRuns?');
  });

  it('check refuses a route to an unknown agent at its line, and warns about dm everyone', () => {
    const file = join(home, 'routes.json5');
    writeFileSync(file, '{\n  whatsapp: {enabled: false},\n  routes: [\n    {agent: "nobody"},\n  ],\n}\n');
    const bad = run(['config', 'check', file]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(new RegExp(`${file}:4:\\d+ routes\\.0\\.agent: unknown agent "nobody"`));
    writeFileSync(
      file,
      '{whatsapp: {enabled: false}, twilio: {enabled: true, dm: "everyone"}, agents: {list: [{name: "home", kind: "codex"}]}, routes: [{agent: "home"}]}',
    );
    const open = run(['config', 'check', file]);
    expect(open.code, open.stderr).toBe(0);
    expect(open.stdout).toContain('named agents: home');
    expect(open.stdout).toContain("warning: twilio.dm is 'everyone': anyone who finds this number");
  });

  it('check lists every problem as FILE:LINE:COL key: message and exits 1', () => {
    const file = join(home, 'bad.json5');
    writeFileSync(file, '{\n  queue: {maxConcurrentRuns: 0},\n  bogus: true,\n}\n');
    const r = run(['config', 'check', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${file}:2:11 queue.maxConcurrentRuns:`);
    expect(r.stderr).toContain(`${file}:3:3 bogus: unknown key`);
  });

  it('check reports a JSON5 syntax error with its position', () => {
    const file = join(home, 'syntax.json5');
    writeFileSync(file, '{\n  agent: {kind: "claude"\n}\n');
    const r = run(['config', 'check', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^${file}:\\d+:\\d+ \\(root\\): `));
  });

  it('check of a named file that does not exist fails', () => {
    const r = run(['config', 'check', join(home, 'nope.json5')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('file not found');
  });

  it('print fills defaults and never shows a secret', () => {
    const file = join(home, 'secret.json5');
    writeFileSync(file, '{agent: {env: {API_KEY: "${MY_KEY}"}}, twilio: {accountSid: "AC1"}}');
    const r = run(['--config', file, 'config', 'print'], {
      MY_KEY: 'sk-live-very-secret',
      TWILIO_AUTH_TOKEN: 'tok-secret-123',
    });
    expect(r.code).toBe(0);
    const printed = JSON.parse(r.stdout);
    expect(printed.queue.maxConcurrentRuns).toBe(4);
    expect(printed.agent.env.API_KEY).toBe('[redacted]');
    expect(printed.twilio.authToken).toBe('[redacted]');
    expect(r.stdout).not.toContain('sk-live-very-secret');
    expect(r.stdout).not.toContain('tok-secret-123');
  });

  it('print shows any value built from ${VAR} as written, whichever key holds it', () => {
    const file = join(home, 'refs.json5');
    writeFileSync(
      file,
      '{agent: {command: ["claude", "--api-key=${PLAIN_NAME}"]}, twilio: {webhook: {publicUrl: "https://x.example/h?t=${ANOTHER}"}}}',
    );
    const r = run(['--config', file, 'config', 'print'], { PLAIN_NAME: 'v4lue-one', ANOTHER: 'v4lue-two' });
    expect(r.code).toBe(0);
    const printed = JSON.parse(r.stdout);
    expect(printed.agent.command).toEqual(['claude', '--api-key=${PLAIN_NAME}']);
    expect(printed.twilio.webhook.publicUrl).toBe('https://x.example/h?t=${ANOTHER}');
    expect(r.stdout).not.toMatch(/v4lue-(one|two)/);
  });

  it('print masks a secret-named environment value typed into the file by hand', () => {
    const file = join(home, 'typed.json5');
    writeFileSync(file, '{agent: {command: ["claude", "--key", "typed-secret-9"]}}');
    const r = run(['--config', file, 'config', 'print'], { SOME_API_KEY: 'typed-secret-9' });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('typed-secret-9');
  });

  it('check reports a missing key and a wrong type deep in an array, each with FILE:LINE:COL', () => {
    const file = join(home, 'deep.json5');
    writeFileSync(
      file,
      '{\n  schedules: [\n    {id: "a", every: "5m", prompt: "p", check: ["ok", 7]},\n  ],\n}\n',
    );
    const r = run(['config', 'check', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${file}:3:5 schedules.0.target: required key missing`);
    expect(r.stderr).toContain(`${file}:3:55 schedules.0.check.1: `);
  });

  it('unknown commands are usage errors (exit 2)', () => {
    expect(run(['frobnicate']).code).toBe(2);
  });
});
