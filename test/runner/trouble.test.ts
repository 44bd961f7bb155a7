// A CLI that would retry until the run's time limit: codex with no credentials on a host that is
// offline (fixtures/agents/codex/no-credentials.json, captured from the real CLI in the
// loopback-only namespace, replayed at its own pace sped up). The relay must say what is wrong
// within seconds instead of waiting for its timeout.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { codexSpec } from '../../src/agents/codex.js';
import { opencodeSpec } from '../../src/agents/opencode.js';
import type { AgentRequest, Trouble } from '../../src/agents/types.js';
import { runCommandReply } from '../../src/runner/run-command-reply.js';
import { troubleResult } from '../../src/runner/trouble.js';
import { FIXTURES_DIR } from '../agents/fixtures.js';

const REPLAY = join(import.meta.dirname, '..', 'fixtures', 'replay-cli.mjs');
const dir = mkdtempSync(join(tmpdir(), 'aw-trouble-'));
const cwd = join(dir, 'work');
mkdirSync(cwd);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const capture = (name: string) => join(FIXTURES_DIR, 'codex', `${name}.json`);
const PACE = 20;

function request(login: string): AgentRequest {
  return {
    prompt: 'hello',
    session: { type: 'new' },
    command: [process.execPath, REPLAY],
    cwd,
    stateDir: join(dir, 'state'),
    // Far past what the test waits for: reaching it is the failure this guards against.
    timeoutMs: 60_000,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      REPLAY_CAPTURE: capture('no-credentials'),
      REPLAY_LOGIN_CAPTURE: capture(login),
      REPLAY_PACE: String(PACE),
      REPLAY_HANG: '1',
    },
  };
}

const lines = (name: string): string[] =>
  (JSON.parse(readFileSync(capture(name), 'utf8')) as { stdout: string }).stdout.split('\n');

describe('codex reading its own retry lines', () => {
  // Each line of the real capture, and what it says.
  const seen = lines('no-credentials').map((l) => codexSpec.trouble?.(l)?.kind ?? '-');
  const stops = lines('no-credentials').map((l) => codexSpec.trouble?.(l)?.stop ?? false);
  it('names name-lookup failures as offline, and stops only at "waiting for network"', () => {
    expect(seen).toEqual(['-', '-', 'offline', 'offline', 'offline', 'offline', '-', 'offline', '-']);
    expect(stops.indexOf(true)).toBe(7);
  });
  it('takes a refused key as final at its first retry', () => {
    const first = lines('auth').find((l) => l.includes('Reconnecting'));
    expect(codexSpec.trouble?.(first ?? '')).toMatchObject({ kind: 'auth', stop: true });
  });
  it('reads the real `codex login status` of a machine with no credentials as signed out', () => {
    const c = JSON.parse(readFileSync(capture('login-status-no-credentials'), 'utf8')) as {
      stdout: string;
      stderr: string;
    };
    expect(codexSpec.signIn?.signedOut.test(`${c.stdout}\n${c.stderr}`)).toBe(true);
  });
});

describe('troubleResult', () => {
  const t = (kind: Trouble['kind']): Trouble => ({ kind, stop: true, detail: 'Reconnecting... 2/5 (x)' });
  it.each([
    ['auth', true, 'auth', 'Codex is not signed in on this machine: run `codex login` there'],
    ['offline', true, 'auth', 'Codex is not signed in on this machine: run `codex login` there'],
    ['auth', false, 'auth', "Codex's model provider refused its key or login"],
    ['offline', false, 'overloaded', 'Codex cannot reach its model provider: the host looks offline'],
  ] as const)('%s, signed out %s → %s', (kind, signedOut, resultKind, text) => {
    const r = troubleResult(codexSpec, t(kind), signedOut, 5);
    expect(r).toMatchObject({ type: 'error', kind: resultKind, message: expect.stringContaining(text) });
  });
});

describe('runCommandReply with codex offline and signed out', () => {
  it('says "not signed in" at the first failed retry, not at the time limit', async () => {
    const t0 = performance.now();
    const r = await runCommandReply(codexSpec, request('login-status-no-credentials'));
    const ms = performance.now() - t0;
    expect(r).toMatchObject({
      type: 'error',
      kind: 'auth',
      message:
        'Codex is not signed in on this machine: run `codex login` there, then send your message again.',
      sessionId: '01a221df-5562-7242-b4ac-d79a81f700a6',
    });
    // The first retry line comes 16.6 s into the real run (0.8 s at this pace); "waiting for
    // network" at 70.8 s (3.5 s). Stopping before the latter shows the sign-in check ended it.
    expect(ms).toBeLessThan(70_774 / PACE);
  });

  it('when signed in, stops once codex itself waits for the network, and says the host is offline', async () => {
    // Any answer but "Not logged in" (here: a real run's output) reads as signed in.
    const r = await runCommandReply(codexSpec, request('new'));
    expect(r).toMatchObject({
      type: 'error',
      kind: 'overloaded',
      message: expect.stringContaining('Codex cannot reach its model provider'),
      detail: expect.stringContaining('waiting for network'),
    });
  });
});

// opencode offline with no credentials (fixtures/agents/opencode/no-credentials.json, captured in
// the loopback-only namespace): nothing on stdout for 78 s of retries, then "Cannot connect to API";
// its error log on stderr names each failed try from 15 s in.
const opencodeCapture = (name: string) => join(FIXTURES_DIR, 'opencode', `${name}.json`);
const opencodeRun = JSON.parse(readFileSync(opencodeCapture('no-credentials'), 'utf8')) as {
  stderr: string;
  stdout_at_ms: number[];
  stderr_at_ms: number[];
};

describe('opencode reading its own error log', () => {
  const lines = opencodeRun.stderr.split('\n').filter(Boolean);
  it('names each failed try at its provider as offline, never as final', () => {
    const seen = lines.map((l) => opencodeSpec.trouble?.(l));
    expect(seen.map((t) => t?.kind ?? '-')).toEqual(['-', ...Array(7).fill('offline'), '-']);
    expect(seen.some((t) => t?.stop)).toBe(false);
    expect(seen[1]?.detail).toMatch(/^AI_APICallError: Cannot connect to API/);
  });
  it('reads the real `opencode auth list` of a machine with no credentials as signed out', () => {
    const c = JSON.parse(readFileSync(opencodeCapture('auth-list-no-credentials'), 'utf8')) as {
      stdout: string;
      stderr: string;
    };
    expect(opencodeSpec.signIn?.signedOut.test(`${c.stdout}\n${c.stderr}`)).toBe(true);
  });
  it('takes a provider key in the environment as a sign-in', () => {
    // What `opencode auth list` printed with ANTHROPIC_API_KEY set (1.18.33, colours left out).
    const withKey =
      '┌  Credentials ~/.local/share/opencode/auth.json\n│\n└  0 credentials\n\n┌  Environment\n│\n●  Anthropic ANTHROPIC_API_KEY\n│\n└  1 environment variable\n';
    expect(opencodeSpec.signIn?.signedOut.test(withKey)).toBe(false);
  });
});

describe('runCommandReply with opencode offline and signed out', () => {
  it('says "not signed in" at its first failed try, not when its retries end', async () => {
    const t0 = performance.now();
    const r = await runCommandReply(opencodeSpec, {
      prompt: 'hello',
      session: { type: 'new' },
      command: [process.execPath, REPLAY],
      cwd,
      stateDir: join(dir, 'state'),
      timeoutMs: 60_000,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        REPLAY_CAPTURE: opencodeCapture('no-credentials'),
        REPLAY_LOGIN_CAPTURE: opencodeCapture('auth-list-no-credentials'),
        REPLAY_PACE: String(PACE),
        REPLAY_HANG: '1',
      },
    });
    const ms = performance.now() - t0;
    expect(r).toMatchObject({
      type: 'error',
      kind: 'auth',
      message:
        'opencode is not signed in on this machine: run `opencode auth login` there, then send your message again.',
    });
    // Its own "Cannot connect to API" came 77.9 s into the real run (3.9 s at this pace); the first
    // failed try is logged at 15.4 s (0.8 s).
    expect(ms).toBeLessThan((opencodeRun.stdout_at_ms[0] ?? 0) / PACE);
  });
});
