// Permission policy `ask` in the four warm drivers, each against its fake CLI (a real child
// process): the CLI's permission request becomes one ApprovalQuestion through TurnRequest.approve,
// the person's answer goes back one-time (allow_chat is "allow once" on the wire: the relay
// remembers it), a missing Approver is a deny, and a /stop while the person has not answered
// cancels the wait (the Approver's signal aborts) and answers the CLI as its protocol wants.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentRequest, ApprovalAnswer, ApprovalQuestion, Approver } from '../../src/agents/types.js';
import { acpDriver } from '../../src/drivers/acp.js';
import { claudeDriver } from '../../src/drivers/claude.js';
import { codexDriver } from '../../src/drivers/codex.js';
import { piDriver } from '../../src/drivers/pi.js';
import { createWarmPool } from '../../src/drivers/pool.js';
import type { SessionDriver } from '../../src/drivers/types.js';
import { createLogger } from '../../src/log.js';
import { tempDir } from '../helpers/tmp.js';

const fixtures = join(import.meta.dirname, '..', 'fixtures');
const dir = tempDir('aw-ask-');
const PATH = process.env.PATH ?? '/usr/bin:/bin';
const drivers: SessionDriver[] = [];
let n = 0;

afterEach(async () => {
  await Promise.all(drivers.splice(0).map((d) => d.close()));
});

type Tap = (direction: 'in' | 'out', message: unknown) => void;

interface Case {
  name: string;
  /** The prompt that makes the fake ask. */
  prompt: string;
  make: (tap: Tap) => SessionDriver;
  question: ApprovalQuestion;
  /** The reply text after an allow, and after a deny. */
  allowed: RegExp;
  denied: RegExp;
  /** The answer on the wire after a cancel, found among the messages we sent. */
  cancelled: (sent: string) => boolean;
}

const cases: Case[] = [
  {
    name: 'claude',
    prompt: 'ask',
    make: (tap) =>
      claudeDriver({
        name: 'Claude Code',
        process: {
          argv: [process.execPath, join(fixtures, 'fake-claude-stream.mjs')],
          cwd: dir,
          env: { PATH, FAKE_CLAUDE_ARGV: join(dir, `argv-${++n}.json`) },
        },
        permission: 'ask',
        cancelGraceMs: 2000,
        startTimeoutMs: 15_000,
        tap,
      }),
    question: { toolKind: 'shell', summary: 'run: touch x' },
    allowed: /answered allow/,
    denied: /answered deny/,
    cancelled: (s) => /"behavior":"deny"[^}]*"interrupt":true/.test(s),
  },
  {
    name: 'codex',
    prompt: 'ask',
    make: (tap) =>
      codexDriver({
        name: 'Codex',
        process: {
          argv: [process.execPath, join(fixtures, 'fake-codex-app-server.mjs')],
          cwd: dir,
          env: { PATH, FAKE_CODEX_STATE: dir },
        },
        permission: 'ask',
        cancelGraceMs: 2000,
        startTimeoutMs: 15_000,
        tap,
      }),
    question: { toolKind: 'shell', summary: 'run: touch x' },
    allowed: /decision: "accept"/,
    denied: /decision: "decline"/,
    cancelled: (s) => s.includes('"decision":"cancel"'),
  },
  {
    name: 'acp',
    prompt: 'ask',
    make: (tap) =>
      acpDriver({
        name: 'Fake ACP',
        process: { argv: [process.execPath, join(fixtures, 'fake-acp-agent.mjs')], cwd: dir, env: { PATH } },
        permission: 'ask',
        cancelGraceMs: 2000,
        startTimeoutMs: 15_000,
        tap,
      }),
    question: { toolKind: 'edit', summary: 'delete: rm -rf build' },
    // The one-time option, never "always": the relay remembers allow_chat itself.
    allowed: /permission: yes/,
    denied: /permission: no/,
    cancelled: (s) => s.includes('"outcome":{"outcome":"cancelled"}'),
  },
  {
    name: 'pi',
    prompt: 'confirm',
    make: (tap) =>
      piDriver({
        name: 'pi',
        process: { argv: [process.execPath, join(fixtures, 'fake-pi-rpc.mjs')], cwd: dir, env: { PATH } },
        sessionDir: join(dir, `pi-sessions-${++n}`),
        permission: 'ask',
        cancelGraceMs: 2000,
        startTimeoutMs: 15_000,
        tap,
      }),
    question: { toolKind: 'pi:Run rm?', summary: 'Run rm?: rm -rf build' },
    allowed: /"confirmed":true/,
    denied: /"confirmed":false/,
    cancelled: (s) => /"type":"extension_ui_response"[^}]*"cancelled":true/.test(s),
  },
];

async function opened(c: Case) {
  const sent: unknown[] = [];
  const d = c.make((direction, message) => {
    if (direction === 'out') sent.push(message);
  });
  drivers.push(d);
  const o = await d.open({ type: 'new' });
  if (o.type !== 'ok') throw new Error(`open failed: ${o.message} ${o.detail ?? ''}`);
  return { d, sent: () => JSON.stringify(sent) };
}

/** An Approver that records each question and answers `answer`. */
function stub(answer: ApprovalAnswer) {
  const asked: ApprovalQuestion[] = [];
  const approve: Approver = async (q) => {
    asked.push(q);
    return answer;
  };
  return { asked, approve };
}

async function waitFor(check: () => boolean, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe.each(cases)('permission policy ask: $name', (c) => {
  it.each<[string, ApprovalAnswer, 'allowed' | 'denied']>([
    ['allow_once', { type: 'allow_once' }, 'allowed'],
    ['allow_chat (answered once on the wire)', { type: 'allow_chat' }, 'allowed'],
    ['deny', { type: 'deny', reason: 'denied from the phone' }, 'denied'],
  ])('asks the person and answers %s', async (_name, answer, outcome) => {
    const { d, sent } = await opened(c);
    const { asked, approve } = stub(answer);
    const r = await d.turn({ prompt: c.prompt, timeoutMs: 10_000, approve });
    expect(asked).toEqual([c.question]);
    expect(r).toMatchObject({ type: 'ok', text: expect.stringMatching(c[outcome]) });
    // One-time only: nothing "always" / "for session" went out.
    expect(sent()).not.toMatch(/acceptForSession|"optionId":"always"|updatedPermissions/);
  });

  it('with no Approver on the turn, denies without waiting', async () => {
    const { d } = await opened(c);
    const r = await d.turn({ prompt: c.prompt, timeoutMs: 10_000 });
    expect(r).toMatchObject({ type: 'ok', text: expect.stringMatching(c.denied) });
  });

  it.each([
    ['not counted: the turn hears the deny and ends with a reply', true],
    ['counted when nobody reports the wait: the turn times out', false],
  ])('time spent waiting for the person is %s', async (_name, reported) => {
    const { d } = await opened(c);
    // The person answers after 1.5 s, twice the turn's 0.75 s limit.
    let since: number | undefined;
    let waited = 0;
    const approve: Approver = async () => {
      since = Date.now();
      await new Promise((r) => setTimeout(r, 1500));
      waited = Date.now() - since;
      since = undefined;
      return { type: 'deny', reason: 'no answer in 10 minutes' };
    };
    const personWaitMs = () => waited + (since === undefined ? 0 : Date.now() - since);
    const r = await d.turn({
      prompt: c.prompt,
      timeoutMs: 750,
      approve,
      ...(reported && { personWaitMs }),
    });
    if (reported) expect(r).toMatchObject({ type: 'ok', text: expect.stringMatching(c.denied) });
    else expect(r).toMatchObject({ type: 'error', kind: 'timeout' });
  });

  it('a stop while the person has not answered cancels the wait and answers the CLI as a cancel', async () => {
    const { d, sent } = await opened(c);
    let seen: AbortSignal | undefined;
    // Never answers by itself: only the turn's stop can end the wait.
    const approve: Approver = (_q, signal) => {
      seen = signal;
      return new Promise(() => {});
    };
    const stop = new AbortController();
    const running = d.turn({ prompt: c.prompt, timeoutMs: 10_000, signal: stop.signal, approve });
    await waitFor(() => seen !== undefined);
    expect(seen?.aborted).toBe(false);
    stop.abort();
    expect(await running).toMatchObject({ type: 'error', kind: 'aborted' });
    expect(seen?.aborted).toBe(true);
    await waitFor(() => c.cancelled(sent()));
    // The process survives the stop and takes the next turn.
    expect(d.state().type).toBe('idle');
  });
});

describe('ask starts each CLI in a mode that asks', () => {
  it('claude gets --permission-prompt-tool stdio under ask only', async () => {
    const argvOf = async (permission: 'ask' | 'deny') => {
      const file = join(dir, `argv-mode-${permission}.json`);
      const d = claudeDriver({
        name: 'Claude Code',
        process: {
          argv: [process.execPath, join(fixtures, 'fake-claude-stream.mjs')],
          cwd: dir,
          env: { PATH, FAKE_CLAUDE_ARGV: file },
        },
        permission,
        startTimeoutMs: 15_000,
      });
      drivers.push(d);
      expect(await d.open({ type: 'new' })).toMatchObject({ type: 'ok' });
      return JSON.parse(readFileSync(file, 'utf8')) as string[];
    };
    expect((await argvOf('ask')).join(' ')).toContain('--permission-prompt-tool stdio');
    expect(await argvOf('deny')).not.toContain('--permission-prompt-tool');
  });

  it.each([
    ['ask', 'untrusted'],
    ['deny', 'never'],
    ['allow', 'never'],
  ] as const)('codex starts its thread under %s with approval %s', async (permission, policy) => {
    const log = join(dir, `codex-${permission}.log`);
    const d = codexDriver({
      name: 'Codex',
      process: {
        argv: [process.execPath, join(fixtures, 'fake-codex-app-server.mjs')],
        cwd: dir,
        env: { PATH, FAKE_CODEX_STATE: dir, FAKE_CODEX_LOG: log },
      },
      permission,
      startTimeoutMs: 15_000,
    });
    drivers.push(d);
    expect(await d.open({ type: 'new' })).toMatchObject({ type: 'ok' });
    const start = readFileSync(log, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((m) => m.method === 'thread/start');
    expect(start.params.approvalPolicy).toBe(policy);
  });
});

describe('through the warm pool, as the relay runs it', () => {
  it('the request’s policy reaches the driver, approve reaches the turn, and another policy is another process', async () => {
    const pool = createWarmPool({
      maxProcesses: 2,
      idleMs: 60_000,
      log: createLogger({ level: 'silent' }),
      cold: () => Promise.resolve({ type: 'error', kind: 'exit', message: 'cold ran', durationMs: 0 }),
    });
    try {
      const request = (permissions: 'ask' | 'deny', approve?: Approver): AgentRequest => ({
        prompt: 'ask',
        session: { type: 'new' },
        command: [process.execPath, join(fixtures, 'fake-codex-app-server.mjs')],
        cwd: dir,
        stateDir: dir,
        env: { PATH, FAKE_CODEX_STATE: dir },
        timeoutMs: 10_000,
        permissions,
        ...(approve ? { approve } : {}),
      });
      const { asked, approve } = stub({ type: 'allow_chat' });
      const a = await pool.run('chat:p', 'codex', request('ask', approve));
      expect(a).toMatchObject({ type: 'ok', text: 'decision: "accept"' });
      expect(asked).toEqual([{ toolKind: 'shell', summary: 'run: touch x' }]);
      const pid = pool.list(Date.now())[0]?.pid;
      const b = await pool.run('chat:p', 'codex', {
        ...request('deny'),
        session: { type: 'resume', id: (a as { sessionId: string }).sessionId },
      });
      expect(b).toMatchObject({ type: 'ok', text: 'decision: "decline"' });
      expect(pool.list(Date.now())[0]?.pid).not.toBe(pid);
    } finally {
      await pool.shutdown(5000);
    }
  });
});

describe('claude withdraws a request (control_cancel_request)', () => {
  it('the person is no longer asked (the signal aborts), no answer is sent, and the turn goes on', async () => {
    const c = cases[0] as Case;
    const { d, sent } = await opened(c);
    let seen: AbortSignal | undefined;
    const approve: Approver = (_q, signal) => {
      seen = signal;
      return new Promise(() => {});
    };
    const r = await d.turn({ prompt: 'withdraw', timeoutMs: 10_000, approve });
    expect(r).toMatchObject({ type: 'ok', text: 'withdrawn' });
    expect(seen?.aborted).toBe(true);
    expect(sent()).not.toContain('ask-1');
    // The next turn is untouched by it.
    const next = await d.turn({ prompt: 'hello', timeoutMs: 10_000, approve });
    expect(next).toMatchObject({ type: 'ok', text: 'turn 2: hello' });
  });
});
