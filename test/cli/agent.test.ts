// `agentwire agent run | argv | parse`, through the built binary as a user runs it.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';

const bin = new URL('../../dist/cli/bin.js', import.meta.url).pathname;
const fixtures = new URL('../../fixtures/agents/', import.meta.url).pathname;
const replay = new URL('../fixtures/replay-cli.mjs', import.meta.url).pathname;
const home = tempDir('aw-cli-agent-');

function run(args: string[], input?: string) {
  const r = spawnSync(process.execPath, [bin, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: home, AGENTWIRE_HOME: home },
    encoding: 'utf8',
    ...(input !== undefined ? { input } : {}),
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const capture = (kind: string, name: string) =>
  JSON.parse(readFileSync(join(fixtures, kind, `${name}.json`), 'utf8')) as {
    stdout: string;
    stderr: string;
  };

function stdoutFile(kind: string, name: string): string {
  const f = join(home, `${kind}-${name}.out`);
  writeFileSync(f, capture(kind, name).stdout);
  return f;
}

describe('agentwire agent argv', () => {
  it('prints the argv as JSON, without the prompt', () => {
    const r = run(['agent', 'argv', '--kind', 'codex', '--session', '01a2-t', '--prompt', '--evil']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      'codex',
      'exec',
      'resume',
      '--json',
      '--skip-git-repo-check',
      '--',
      '01a2-t',
      '-',
    ]);
  });

  it('chooses a new claude session id itself', () => {
    const argv = JSON.parse(run(['agent', 'argv', '--kind', 'claude', '--new']).stdout) as string[];
    expect(argv[argv.indexOf('--session-id') + 1]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it.each([
    [['agent', 'argv', '--kind', 'nope']],
    [['agent', 'argv', '--kind', 'claude', '--session', 'x', '--new']],
    [['agent', 'argv', '--kind', 'claude', '--session', '--verbose']],
  ])('exits 2 on usage errors: %j', (args) => {
    expect(run(args).code).toBe(2);
  });

  it('without --kind uses agent.kind from the config, as `agent run` does', () => {
    const cfg = join(home, 'codex.json5');
    writeFileSync(cfg, '{agent: {kind: "codex"}}');
    const r = run(['--config', cfg, 'agent', 'argv', '--session', 's1']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      'codex',
      'exec',
      'resume',
      '--json',
      '--skip-git-repo-check',
      '--',
      's1',
      '-',
    ]);
    // With no config file at all: the default kind, claude.
    const d = run(['agent', 'argv']);
    expect(d.code, d.stderr).toBe(0);
    expect((JSON.parse(d.stdout) as string[])[0]).toBe('claude');
    // parse follows the same rule.
    const p = run(['--config', cfg, 'agent', 'parse', stdoutFile('codex', 'new')]);
    expect(p.code, p.stderr).toBe(0);
    expect(JSON.parse(p.stdout)).toMatchObject({ type: 'ok' });
  });
});

describe('agentwire agent parse', () => {
  it('parses a captured stream-json stdout from a file', () => {
    const r = run(['agent', 'parse', '--kind', 'claude', stdoutFile('claude', 'tool')]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      type: 'ok',
      text: 'Here is your chart.',
      progress: ['Let me check.'],
      media: ['./chart.png'],
      sessionId: '44444444-2222-4333-8444-555555555555',
    });
  });

  it('reads stdin and decides errors too, exiting 0', () => {
    const r = run(['agent', 'parse', '--kind', 'pi', '-'], capture('pi', 'auth').stdout);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ type: 'error', kind: 'auth' });
  });

  it('uses the exit code and stderr it is given', () => {
    const stderr = join(home, 'codex-stale.err');
    writeFileSync(stderr, capture('codex', 'stale-session').stderr);
    const r = run(['agent', 'parse', '--kind', 'codex', '--exit-code', '1', '--stderr', stderr, '-'], '');
    expect(JSON.parse(r.stdout)).toMatchObject({ type: 'error', kind: 'session_not_found', exitCode: 1 });
  });

  it('parses gemini json mode and plain text', () => {
    const json = run([
      'agent',
      'parse',
      '--kind',
      'gemini',
      '--format',
      'json',
      stdoutFile('gemini', 'new-json'),
    ]);
    expect(JSON.parse(json.stdout)).toMatchObject({
      type: 'ok',
      text: 'Here is your chart.',
      sessionId: 'agentwire-chat-2',
    });
    const text = run(
      ['agent', 'parse', '--kind', 'claude', '--format', 'text', '--exit-code', '1', '-'],
      'Invalid API key · Fix external API key\n',
    );
    expect(JSON.parse(text.stdout)).toMatchObject({ type: 'error', kind: 'auth' });
  });

  it.each([
    [['agent', 'parse', '--kind', 'claude', '--format', 'xml', '-']],
    [['agent', 'parse', '--kind', 'claude', '--exit-code', 'x', '-']],
    [['agent', 'parse', '--kind', 'claude', join(home, 'missing.txt')]],
    [['agent', 'parse', '--kind', 'nope', '-']],
  ])('exits 2 on usage errors: %j', (args) => {
    expect(run(args, '').code).toBe(2);
  });
});

describe('agentwire agent run', () => {
  const config = (kind: string, name: string) => {
    const f = join(home, `run-${kind}-${name}.json5`);
    writeFileSync(
      f,
      JSON.stringify({
        agent: {
          kind,
          command: [process.execPath, replay],
          env: { REPLAY_CAPTURE: join(fixtures, kind, `${name}.json`) },
        },
      }),
    );
    return f;
  };

  it('prints the reply and its media, and the session on stderr', () => {
    const r = run(['--config', config('codex', 'media'), 'agent', 'run', 'send', 'files']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      'Here you go.\n```\nMEDIA: ./not-this.png\n```\nAnd also:\nMEDIA: ./a.png\nMEDIA: ./b file.pdf\n',
    );
    expect(r.stderr).toContain('session: 01a20191-1f80-7fe0-9866-479ab84c527b');
  });

  it('prints the AgentResult with --json and exits 1 on an agent error', () => {
    const r = run(['--config', config('opencode', 'auth'), 'agent', 'run', '--json', 'hello']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ type: 'error', kind: 'auth' });
  });

  it('says so when the CLI is not installed', () => {
    const f = join(home, 'missing.json5');
    writeFileSync(f, JSON.stringify({ agent: { kind: 'gemini', command: ['agentwire-test-no-gemini'] } }));
    const r = run(['--config', f, 'agent', 'run', 'hi']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('not_installed');
  });
});
