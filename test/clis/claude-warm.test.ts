// The claude stream-json driver against the real `claude` (pinned version, offline, fake model
// server). With AW_CAPTURE_WARM=<fixtures/agents> every protocol message both ways is written to
// claude/warm/stream-<case>.json: the fixtures are captured here, never typed.

import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { claudeDriver } from '../../src/drivers/claude.js';
import type { PermissionPolicy } from '../../src/drivers/types.js';
import { requests, scenario, stateDir, turn, waitNoLeftovers } from './harness.js';
import { type Capture, capturing, packageVersion, saveCapture, step } from './warm-capture.js';

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

const make = (state: string, base: string, c: Capture, permission: PermissionPolicy = 'deny') => {
  const { request, marker } = turn('claude', state, base, '', { type: 'new' }, 60_000);
  const d = claudeDriver({
    name: 'Claude Code',
    process: {
      argv: ['claude'],
      cwd: request.cwd,
      env: { ...request.env, PATH: `${inject('clisDir')}/bin:${process.env.PATH}` },
    },
    permission,
    startTimeoutMs: 60_000,
    cancelGraceMs: 10_000,
    tap: (dir, msg) => c.messages.push({ dir, msg }),
  });
  return { d, marker };
};

describe('claude stream-json driver with the real claude', () => {
  it('two turns in one process, the second sees the first; then a stop mid-turn and one more turn', async () => {
    const id = 'claude-warm-turns';
    const base = await scenario(id, { mode: 'ok', reply: 'First answer.' });
    const state = stateDir('claude');
    const c = capturing();
    const { d, marker } = make(state, base, c);
    try {
      const o = await step(c, 'open new', d.open({ type: 'new' }));
      if (o.type !== 'ok') throw new Error(`open: ${o.message} ${o.detail ?? ''}`);
      const pid = d.pid();
      const a = await step(c, 'turn hello', d.turn({ prompt: 'hello', timeoutMs: 60_000 }));
      expect(a).toMatchObject({ type: 'ok', text: 'First answer.', sessionId: o.sessionId });
      await scenario(id, { mode: 'ok', reply: 'Second answer.' });
      const b = await step(c, 'turn again', d.turn({ prompt: 'second question', timeoutMs: 60_000 }));
      expect(b).toMatchObject({ type: 'ok', text: 'Second answer.', sessionId: o.sessionId });
      expect(d.pid()).toBe(pid);
      // The model's last request carries the first turn: the session kept its history.
      const body = JSON.stringify((await requests(id)).at(-1)?.body ?? '');
      expect(body).toContain('hello');
      expect(body).toContain('First answer.');
      expect(body).toContain('second question');

      await scenario(id, { mode: 'hang' });
      const stop = new AbortController();
      const before = (await requests(id)).length;
      const hung = d.turn({ prompt: 'this one hangs', timeoutMs: 60_000, signal: stop.signal });
      await waitFor(async () => (await requests(id)).length > before);
      expect(d.steer('also this')).toEqual({ type: 'unsupported' });
      stop.abort();
      expect(await step(c, 'turn stopped', hung)).toMatchObject({ type: 'error', kind: 'aborted' });
      expect(d.state()).toEqual({ type: 'idle', sessionId: o.sessionId });
      await scenario(id, { mode: 'ok', reply: 'Third answer.' });
      const third = await step(c, 'turn after stop', d.turn({ prompt: 'after the stop', timeoutMs: 60_000 }));
      expect(third).toMatchObject({ type: 'ok', text: 'Third answer.' });
      expect(d.pid()).toBe(pid);
      // For the docs: what one idle warm process (its whole group) holds in memory.
      c.steps.push({ step: 'idle group RSS (KiB)', result: groupRssKb(pid as number) });
    } finally {
      await d.close();
      await save('turns', c, id);
    }
    expect(await waitNoLeftovers(marker)).toEqual([]);
  });

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

  it('a process killed mid-turn is replaced by one that resumes the session', async () => {
    const id = 'claude-warm-killed';
    const base = await scenario(id, { mode: 'ok', reply: 'Remember me.' });
    const state = stateDir('claude');
    const c = capturing();
    const first = make(state, base, c);
    const o = await step(c, 'open new', first.d.open({ type: 'new' }));
    if (o.type !== 'ok') throw new Error(`open: ${o.message}`);
    await step(c, 'turn hello', first.d.turn({ prompt: 'hello', timeoutMs: 60_000 }));
    await scenario(id, { mode: 'hang' });
    const before = (await requests(id)).length;
    const hung = first.d.turn({ prompt: 'killed during this', timeoutMs: 60_000 });
    await waitFor(async () => (await requests(id)).length > before);
    process.kill(-(first.d.pid() as number), 'SIGKILL');
    expect(await step(c, 'turn killed', hung)).toMatchObject({
      type: 'error',
      kind: 'exit',
      signal: 'SIGKILL',
    });
    expect(first.d.state()).toMatchObject({ type: 'broken', fault: { type: 'exited' } });

    await scenario(id, { mode: 'ok', reply: 'Back again.' });
    const second = make(state, base, c);
    try {
      const r = await step(c, 'open resume', second.d.open({ type: 'resume', id: o.sessionId }));
      expect(r).toEqual({ type: 'ok', sessionId: o.sessionId });
      const again = await step(
        c,
        'turn resumed',
        second.d.turn({ prompt: 'are you back', timeoutMs: 60_000 }),
      );
      expect(again).toMatchObject({ type: 'ok', text: 'Back again.', sessionId: o.sessionId });
      const body = JSON.stringify((await requests(id)).at(-1)?.body ?? '');
      expect(body).toContain('Remember me.');
    } finally {
      await second.d.close();
      await save('killed-resume', c, id);
    }
  });

  it('a session closed cleanly is resumed by a new process (a relay restart)', async () => {
    const id = 'claude-warm-restart';
    const base = await scenario(id, { mode: 'ok', reply: 'Remember me.' });
    const state = stateDir('claude');
    const c = capturing();
    const first = make(state, base, c);
    const o = await step(c, 'open new', first.d.open({ type: 'new' }));
    if (o.type !== 'ok') throw new Error(`open: ${o.message}`);
    await step(c, 'turn hello', first.d.turn({ prompt: 'hello', timeoutMs: 60_000 }));
    await first.d.close();
    expect(first.d.state()).toEqual({ type: 'closed' });
    await scenario(id, { mode: 'ok', reply: 'Back again.' });
    const second = make(state, base, c);
    try {
      const r = await step(c, 'open resume', second.d.open({ type: 'resume', id: o.sessionId }));
      expect(r).toEqual({ type: 'ok', sessionId: o.sessionId });
      const again = await step(
        c,
        'turn resumed',
        second.d.turn({ prompt: 'are you back', timeoutMs: 60_000 }),
      );
      expect(again).toMatchObject({ type: 'ok', text: 'Back again.' });
      expect(JSON.stringify((await requests(id)).at(-1)?.body ?? '')).toContain('Remember me.');
    } finally {
      await second.d.close();
      await save('restart-resume', c, id);
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

  // Cold `claude -p` with the relay's flags refuses a shell command that writes (no prompt tool):
  // the warm process has the same flags, so the same tool call is refused the same way.
  it('a tool the cold flags refuse is refused in warm mode too, and the turn does not hang', async () => {
    const id = 'claude-warm-tool';
    const base = await scenario(id, {
      mode: 'tool',
      reply: 'After the tool.',
      tool: {
        name: 'Bash',
        input: { command: 'touch made-by-tool', description: 'Run the scripted tool command' },
      },
    });
    const state = stateDir('claude');
    const c = capturing();
    const { d } = make(state, base, c, 'allow');
    try {
      expect(await d.open({ type: 'new' })).toMatchObject({ type: 'ok' });
      const r = await step(c, 'turn tool', d.turn({ prompt: 'run the tool', timeoutMs: 60_000 }));
      expect(r).toMatchObject({ type: 'ok', text: 'After the tool.' });
      expect(existsSync(join(state, 'work', 'made-by-tool'))).toBe(false);
      // No permission question was asked: the CLI decided by its own rules.
      expect(JSON.stringify(c.messages)).not.toContain('can_use_tool');
    } finally {
      await d.close();
      await save('tool', c, id);
    }
  });

  it('a model error ends the turn with its kind and keeps the process', async () => {
    const id = 'claude-warm-auth';
    const base = await scenario(id, { mode: 'error', status: 401 });
    const c = capturing();
    const { d } = make(stateDir('claude'), base, c);
    try {
      expect(await d.open({ type: 'new' })).toMatchObject({ type: 'ok' });
      const pid = d.pid();
      const r = await step(c, 'turn 401', d.turn({ prompt: 'hello', timeoutMs: 60_000 }));
      expect(r).toMatchObject({ type: 'error', kind: 'auth' });
      await scenario(id, { mode: 'ok', reply: 'Signed in.' });
      expect(await d.turn({ prompt: 'again', timeoutMs: 60_000 })).toMatchObject({
        type: 'ok',
        text: 'Signed in.',
      });
      expect(d.pid()).toBe(pid);
    } finally {
      await d.close();
      await save('auth', c, id);
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
    const state = stateDir('claude');
    const { request } = turn('claude', state, base, '', { type: 'new' }, 60_000);
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
    const user = (text: string) =>
      child.stdin.write(
        `${JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'text', text }] } })}\n`,
      );
    try {
      user('run it');
      await waitFor(async () => out.includes('"tool_use"'));
      user('STEERED TEXT');
      await waitFor(async () => out.includes('"type":"result"'));
      await new Promise((r) => setTimeout(r, 1000));
    } finally {
      child.stdin.end();
      await exited;
    }
    const results = out.split('\n').filter((l) => l.includes('"type":"result"'));
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
    const state = stateDir('claude');
    const { request } = turn('claude', state, base, '', { type: 'new' }, 60_000);
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
    const send = (msg: unknown) => child.stdin.write(`${JSON.stringify(msg)}\n`);
    try {
      send({ type: 'control_request', request_id: 'idle-1', request: { subtype: 'interrupt' } });
      await waitFor(async () => out.includes('idle-1'));
      send({ type: 'user', message: { role: 'user', content: [{ type: 'text', text: 'hello' }] } });
      await waitFor(async () => out.includes('"type":"result"'));
      await new Promise((r) => setTimeout(r, 1000));
    } finally {
      child.stdin.end();
      await exited;
    }
    const events = out
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

/** The summed VmRSS of every process in a process group, in KiB. */
function groupRssKb(pgid: number): number {
  let total = 0;
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'latin1');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) !== pgid) continue;
      const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'latin1'));
      total += m ? Number(m[1]) : 0;
    } catch {
      // gone
    }
  }
  return total;
}

async function waitFor(ok: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
