// The claude stream-json driver against the real `claude` (pinned version, offline, fake model
// server). With AW_CAPTURE_WARM=<fixtures/agents> every protocol message both ways is written to
// claude/warm/stream-<case>.json: the fixtures are captured here, never typed.

import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { claudeDriver } from '../../src/drivers/claude.js';
import { requests, scenario, stateDir, turn, waitNoLeftovers } from './harness.js';
import { type Capture, capturing, packageVersion, saveCapture, step } from './warm-capture.js';
import { driverBase, type WarmCli, waitFor, warmScenarios } from './warm-suite.js';

const ARGV = ['claude', '-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose'];

const save = (name: string, c: Capture, scenarioId: string): Promise<void> =>
  saveCapture(c, {
    out: process.env.AW_CAPTURE_WARM,
    kind: 'claude',
    file: `stream-${name}`,
    version: () => packageVersion('claude', '@anthropic-ai/claude-code'),
    argv: ARGV,
    scenario: scenarioId,
    withRequests: true,
  });

const make: WarmCli['make'] = (state, base, c, o = {}) => {
  const { options, marker } = driverBase('claude', state, base, c, ['claude'], o.permission);
  return { d: claudeDriver({ ...options, name: 'Claude Code' }), marker };
};

const CLAUDE: WarmCli = {
  kind: 'claude',
  idPrefix: 'claude-warm',
  make,
  save,
  resumes: 'session',
  turns: {
    second: (sessionId) => ({ sessionId }),
    history: ['second question'],
    idleWithSession: true,
    // The driver never writes mid-turn: the fact checks at the end of this file say why.
    steer: { type: 'unsupported', text: 'also this' },
  },
  resume: { killedKeepsSessionId: true },
  tools: [
    // Cold `claude -p` with the relay's flags refuses a shell command that writes (no prompt tool):
    // the warm process has the same flags, so the same tool call is refused the same way.
    {
      title: 'a tool the cold flags refuse is refused in warm mode too, and the turn does not hang',
      id: 'tool',
      call: {
        name: 'Bash',
        input: { command: 'touch made-by-tool', description: 'Run the scripted tool command' },
      },
      make: { permission: 'allow' },
      check: ({ state, c }) => {
        expect(existsSync(join(state, 'work', 'made-by-tool'))).toBe(false);
        // No permission question was asked: the CLI decided by its own rules.
        expect(JSON.stringify(c.messages)).not.toContain('can_use_tool');
      },
    },
  ],
  auth: { recovers: 'Signed in.' },
};

describe('claude stream-json driver with the real claude', () => {
  warmScenarios(CLAUDE);

  it('a turn past its timeout is interrupted and the process kept', async () => {
    const id = 'claude-warm-timeout';
    const base = await scenario(id, { mode: 'hang' });
    const state = stateDir('claude');
    const c = capturing();
    const { d } = make(state, base, c);
    try {
      expect(await d.open({ type: 'new' })).toMatchObject({ type: 'ok' });
      const pid = d.pid();
      const r = await step(c, 'turn timeout', d.turn({ prompt: 'hang', timeoutMs: 3_000 }));
      expect(r).toMatchObject({ type: 'error', kind: 'timeout' });
      expect(d.state().type).toBe('idle');
      await scenario(id, { mode: 'ok', reply: 'Fine now.' });
      expect(await d.turn({ prompt: 'again', timeoutMs: 60_000 })).toMatchObject({
        type: 'ok',
        text: 'Fine now.',
      });
      expect(d.pid()).toBe(pid);
    } finally {
      await d.close();
    }
  });

  it('close() mid-turn interrupts the turn, ends the process and leaves nothing behind', async () => {
    const id = 'claude-warm-close-busy';
    const base = await scenario(id, { mode: 'hang' });
    const state = stateDir('claude');
    const c = capturing();
    const { d, marker } = make(state, base, c);
    expect(await d.open({ type: 'new' })).toMatchObject({ type: 'ok' });
    const hung = d.turn({ prompt: 'hang', timeoutMs: 60_000 });
    await waitFor(async () => (await requests(id)).length > 0);
    const exit = (async () => {
      const t0 = Date.now();
      await d.close();
      return Date.now() - t0;
    })();
    expect(await hung).toMatchObject({ type: 'error', kind: 'aborted' });
    c.steps.push({ step: 'close while busy (ms)', result: await exit });
    expect(d.state()).toEqual({ type: 'closed' });
    expect(await waitNoLeftovers(marker)).toEqual([]);
    await save('close-busy', c, id);
  });

  it('a resume of a session that does not exist is session_not_found', async () => {
    const id = 'claude-warm-missing';
    const base = await scenario(id, { mode: 'ok' });
    const c = capturing();
    const { d } = make(stateDir('claude'), base, c);
    try {
      const r = await step(c, 'open resume missing', d.open({ type: 'resume', id: randomUUID() }));
      expect(r).toMatchObject({ type: 'error', kind: 'session_not_found' });
      expect(d.state().type).toBe('broken');
    } finally {
      await d.close();
      await save('missing-session', c, id);
    }
  });
});

// A fact the driver is built on, checked on the pinned CLI without the driver (which never writes
// mid-turn): a user message written while a tool runs is folded into the running turn at its next
// model call (one result, and the model's next request carries it). What makes the driver still
// answer steer() 'unsupported' is the other case, in the probe (fixtures/agents/claude/warm/
// probe.json): a message written mid-turn that the turn ends without reaching (an interrupt) is
// kept and run later as a turn of its own, and no event tells the two cases apart.
describe('claude stream-json, a message written mid-turn (fact check)', () => {
  it('reaches the running turn at its next model call', async () => {
    const id = 'claude-warm-midturn';
    const base = await scenario(id, {
      mode: 'tool',
      reply: 'After tool.',
      tool: { name: 'Bash', input: { command: 'sleep 2', description: 'wait' } },
    });
    const { child, stdout, exited } = rawClaude(base);
    const user = (text: string) =>
      child.stdin.write(
        `${JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'text', text }] } })}\n`,
      );
    try {
      user('run it');
      await waitFor(async () => stdout().includes('"tool_use"'));
      user('STEERED TEXT');
      await waitFor(async () => stdout().includes('"type":"result"'));
      await new Promise((r) => setTimeout(r, 1000));
    } finally {
      child.stdin.end();
      await exited;
    }
    const results = stdout()
      .split('\n')
      .filter((l) => l.includes('"type":"result"'));
    expect(results).toHaveLength(1);
    const bodies = (await requests(id)).map((r) => JSON.stringify(r.body));
    expect(bodies[0]).not.toContain('STEERED TEXT');
    expect(bodies.at(-1)).toContain('STEERED TEXT');
  });
});

// The race under every stop: the turn may end just before our interrupt arrives. The interrupt then
// reaches an idle process; it must not cancel or answer for the next turn.
describe('claude stream-json, an interrupt that arrives when idle (fact check)', () => {
  it('is answered and does not touch the next turn', async () => {
    const id = 'claude-warm-idle-interrupt';
    const base = await scenario(id, { mode: 'ok', reply: 'Still here.' });
    const { child, stdout, exited } = rawClaude(base);
    const send = (msg: unknown) => child.stdin.write(`${JSON.stringify(msg)}\n`);
    try {
      send({ type: 'control_request', request_id: 'idle-1', request: { subtype: 'interrupt' } });
      await waitFor(async () => stdout().includes('idle-1'));
      send({ type: 'user', message: { role: 'user', content: [{ type: 'text', text: 'hello' }] } });
      await waitFor(async () => stdout().includes('"type":"result"'));
      await new Promise((r) => setTimeout(r, 1000));
    } finally {
      child.stdin.end();
      await exited;
    }
    const events = stdout()
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as { type: string; subtype?: string; result?: string; response?: unknown });
    expect(events.find((e) => e.type === 'control_response')?.response).toMatchObject({
      subtype: 'success',
      request_id: 'idle-1',
    });
    const results = events.filter((e) => e.type === 'result');
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ subtype: 'success', result: 'Still here.' });
  });
});

/** The pinned claude in stream-json mode on a new session, without the driver. */
function rawClaude(base: string) {
  const { request } = turn('claude', stateDir('claude'), base, '', { type: 'new' }, 60_000);
  const child = spawn('claude', [...ARGV.slice(1), '--session-id', randomUUID()], {
    cwd: request.cwd,
    env: { ...request.env, PATH: `${inject('clisDir')}/bin:${process.env.PATH}` },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (c: string) => {
    out += c;
  });
  const exited = new Promise((r) => child.once('exit', r));
  return { child, stdout: () => out, exited };
}
