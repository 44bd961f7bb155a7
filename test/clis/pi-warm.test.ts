// The pi RPC driver against the real `pi --mode rpc` (pinned version, offline, fake model server).
// With AW_CAPTURE_PI=<fixtures/agents> every record both ways is written to
// pi/warm/rpc-<case>.json: the fixtures are captured here, never typed.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { piDriver } from '../../src/drivers/pi.js';
import type { PermissionPolicy } from '../../src/drivers/types.js';
import { requests, scenario, stateDir, turn, waitNoLeftovers } from './harness.js';
import { type Capture, capturing, lastBody, packageVersion, saveCapture, step } from './warm-capture.js';

const PKG = '@mariozechner/pi-coding-agent';

function make(
  state: string,
  base: string,
  c: Capture,
  opts: { permission?: PermissionPolicy; extra?: string[] } = {},
) {
  const { request, marker } = turn('pi', state, base, '', { type: 'new' }, 60_000);
  const argv = ['pi', ...(opts.extra ?? [])];
  c.argv = [...argv, '--mode', 'rpc', '--session', '<file>'];
  const d = piDriver({
    name: 'pi',
    process: {
      argv,
      cwd: request.cwd,
      env: { ...request.env, PATH: `${inject('clisDir')}/bin:${process.env.PATH}` },
    },
    sessionDir: join(request.stateDir, 'pi-sessions'),
    permission: opts.permission ?? 'deny',
    startTimeoutMs: 60_000,
    cancelGraceMs: 10_000,
    tap: (dir, msg) => c.messages.push({ dir, msg }),
  });
  return { d, marker };
}

const save = (name: string, c: Capture, scenarioId: string): Promise<void> =>
  saveCapture(c, {
    out: process.env.AW_CAPTURE_PI,
    kind: 'pi',
    file: `rpc-${name}`,
    version: () => packageVersion('pi', PKG),
    argv: c.argv ?? [],
    scenario: scenarioId,
    withRequests: true,
  });

describe('pi RPC driver with the real pi', () => {
  it('two turns in one process, the second sees the first; a stop mid-turn (with a steer) and one more turn', async () => {
    const id = 'pi-warm-turns';
    // U+2028 inside the reply and the prompt: a reader that also splits there breaks the record.
    const base = await scenario(id, { mode: 'ok', reply: 'First\u2028answer.' });
    const state = stateDir('pi');
    const c = capturing();
    const { d, marker } = make(state, base, c);
    try {
      const o = await step(c, 'open new', d.open({ type: 'new' }));
      if (o.type !== 'ok') throw new Error(`open: ${o.message} ${o.detail ?? ''}`);
      const pid = d.pid();
      const a = await step(c, 'turn hello', d.turn({ prompt: 'hello\u2028there', timeoutMs: 60_000 }));
      expect(a).toMatchObject({ type: 'ok', text: 'First\u2028answer.', sessionId: o.sessionId });
      expect(existsSync(o.sessionId)).toBe(true);
      await scenario(id, { mode: 'ok', reply: 'Second answer.' });
      const b = await step(c, 'turn again', d.turn({ prompt: 'second question', timeoutMs: 60_000 }));
      expect(b).toMatchObject({
        type: 'ok',
        text: 'Second answer.',
        usage: { inputTokens: expect.any(Number) },
      });
      expect(d.pid()).toBe(pid);
      const body = await lastBody(id);
      expect(body).toContain('hello\u2028there');
      expect(body).toContain('First\u2028answer.');

      await scenario(id, { mode: 'hang' });
      const stop = new AbortController();
      const before = (await requests(id)).length;
      const hung = d.turn({ prompt: 'this one hangs', timeoutMs: 60_000, signal: stop.signal });
      await waitFor(async () => (await requests(id)).length > before);
      expect(d.steer('also this')).toEqual({ type: 'steered' });
      stop.abort();
      expect(await step(c, 'turn stopped', hung)).toMatchObject({ type: 'error', kind: 'aborted' });
      expect(d.state().type).toBe('idle');
      await scenario(id, { mode: 'ok', reply: 'Third answer.' });
      const third = await step(c, 'turn after stop', d.turn({ prompt: 'after the stop', timeoutMs: 60_000 }));
      expect(third).toMatchObject({ type: 'ok', text: 'Third answer.' });
      expect(d.pid()).toBe(pid);
      // pi keeps the text steered into the stopped turn and sends it with the next prompt.
      const after = await lastBody(id);
      expect(after).toContain('after the stop');
      expect(after).toContain('also this');
      c.steps.push({ step: 'idle group RSS (KiB)', result: groupRssKb(pid as number) });
    } finally {
      await d.close();
      await save('turns', c, id);
    }
    expect(await waitNoLeftovers(marker)).toEqual([]);
  });

  it('a process killed mid-turn is replaced by one that resumes the session file', async () => {
    const id = 'pi-warm-killed';
    const base = await scenario(id, { mode: 'ok', reply: 'Remember me.' });
    const state = stateDir('pi');
    const c = capturing();
    const first = make(state, base, c);
    const o = await step(c, 'open new', first.d.open({ type: 'new' }));
    if (o.type !== 'ok') throw new Error(`open: ${o.message}`);
    expect(await step(c, 'turn hello', first.d.turn({ prompt: 'hello', timeoutMs: 60_000 }))).toMatchObject({
      type: 'ok',
    });
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
      expect(await step(c, 'open resume', second.d.open({ type: 'resume', id: o.sessionId }))).toEqual({
        type: 'ok',
        sessionId: o.sessionId,
      });
      const again = await step(
        c,
        'turn resumed',
        second.d.turn({ prompt: 'are you back', timeoutMs: 60_000 }),
      );
      expect(again).toMatchObject({ type: 'ok', text: 'Back again.', sessionId: o.sessionId });
      const body = await lastBody(id);
      expect(body).toContain('Remember me.');
    } finally {
      await second.d.close();
      await save('killed-resume', c, id);
    }
  });

  it('a session closed cleanly is resumed by a new process (a relay restart)', async () => {
    const id = 'pi-warm-restart';
    const base = await scenario(id, { mode: 'ok', reply: 'Remember me.' });
    const state = stateDir('pi');
    const c = capturing();
    const first = make(state, base, c);
    const o = await step(c, 'open new', first.d.open({ type: 'new' }));
    if (o.type !== 'ok') throw new Error(`open: ${o.message}`);
    await step(c, 'turn hello', first.d.turn({ prompt: 'hello', timeoutMs: 60_000 }));
    await first.d.close();
    await scenario(id, { mode: 'ok', reply: 'Back again.' });
    const second = make(state, base, c);
    try {
      expect(await step(c, 'open resume', second.d.open({ type: 'resume', id: o.sessionId }))).toEqual({
        type: 'ok',
        sessionId: o.sessionId,
      });
      const again = await step(
        c,
        'turn resumed',
        second.d.turn({ prompt: 'are you back', timeoutMs: 60_000 }),
      );
      expect(again).toMatchObject({ type: 'ok', text: 'Back again.' });
      expect(await lastBody(id)).toContain('Remember me.');
    } finally {
      await second.d.close();
      await save('restart-resume', c, id);
    }
  });

  it('switches one live process between session files (switch_session), each keeping its history', async () => {
    const id = 'pi-warm-switch';
    const base = await scenario(id, { mode: 'ok', reply: 'Alpha answer.' });
    const state = stateDir('pi');
    const c = capturing();
    const { d } = make(state, base, c);
    try {
      const a = await step(c, 'open new A', d.open({ type: 'new' }));
      if (a.type !== 'ok') throw new Error(`open: ${a.message}`);
      const pid = d.pid();
      await step(c, 'turn in A', d.turn({ prompt: 'alpha question', timeoutMs: 60_000 }));
      await scenario(id, { mode: 'ok', reply: 'Beta answer.' });
      const b = await step(c, 'open new B', d.open({ type: 'new' }));
      if (b.type !== 'ok') throw new Error(`open: ${b.message}`);
      expect(b.sessionId).not.toBe(a.sessionId);
      const rb = await step(c, 'turn in B', d.turn({ prompt: 'beta question', timeoutMs: 60_000 }));
      expect(rb).toMatchObject({ type: 'ok', text: 'Beta answer.', sessionId: b.sessionId });
      expect(await lastBody(id)).not.toContain('alpha question');
      await scenario(id, { mode: 'ok', reply: 'Alpha again.' });
      expect(await step(c, 'open resume A', d.open({ type: 'resume', id: a.sessionId }))).toEqual({
        type: 'ok',
        sessionId: a.sessionId,
      });
      const ra = await step(c, 'turn in A again', d.turn({ prompt: 'back to alpha', timeoutMs: 60_000 }));
      expect(ra).toMatchObject({ type: 'ok', text: 'Alpha again.', sessionId: a.sessionId });
      const body = await lastBody(id);
      expect(body).toContain('Alpha answer.');
      expect(body).not.toContain('beta question');
      expect(d.pid()).toBe(pid);
    } finally {
      await d.close();
      await save('switch', c, id);
    }
  });

  // pi never asks before a tool runs; its extensions do. pi's own example permission-gate asks
  // with a select (["Yes", "No"]) before a bash command with `rm -rf`.
  it.each([
    ['deny', false],
    ['allow', true],
  ] as const)('answers an extension confirm dialog by policy (%s)', async (permission, runs) => {
    const id = `pi-warm-gate-${permission}`;
    const base = await scenario(id, {
      mode: 'tool',
      reply: 'After the tool.',
      tool: { name: 'bash', input: { command: 'touch made-by-tool && rm -rf no-such-dir' } },
    });
    const state = stateDir('pi');
    const c = capturing();
    const gate = join(
      inject('clisDir'),
      'pi',
      'node_modules',
      PKG,
      'examples',
      'extensions',
      'permission-gate.ts',
    );
    const { d } = make(state, base, c, { permission, extra: ['-e', gate] });
    try {
      expect(await step(c, 'open new', d.open({ type: 'new' }))).toMatchObject({ type: 'ok' });
      const r = await step(c, 'turn tool', d.turn({ prompt: 'run the tool', timeoutMs: 60_000 }));
      expect(r).toMatchObject({ type: 'ok', text: 'After the tool.' });
      expect(c.messages.some((m) => (m.msg as { type?: string }).type === 'extension_ui_request')).toBe(true);
      expect(existsSync(join(state, 'work', 'made-by-tool'))).toBe(runs);
    } finally {
      await d.close();
      await save(`gate-${permission}`, c, id);
    }
  });

  it('a prompt an extension command takes without a run ends as an empty reply, not at the timeout', async () => {
    const id = 'pi-warm-command';
    const base = await scenario(id, { mode: 'ok', reply: 'A real answer.' });
    const state = stateDir('pi');
    const c = capturing();
    // pi's example `/commands` lists the commands in a select dialog (dismissed) and starts no run.
    const ext = join(inject('clisDir'), 'pi', 'node_modules', PKG, 'examples', 'extensions', 'commands.ts');
    const { d } = make(state, base, c, { extra: ['-e', ext] });
    try {
      await step(c, 'open new', d.open({ type: 'new' }));
      const r = await step(c, 'turn /commands', d.turn({ prompt: '/commands', timeoutMs: 60_000 }));
      expect(r).toMatchObject({ type: 'ok', text: '' });
      expect((await requests(id)).length).toBe(0);
      const next = await step(c, 'turn after', d.turn({ prompt: 'hello', timeoutMs: 60_000 }));
      expect(next).toMatchObject({ type: 'ok', text: 'A real answer.' });
    } finally {
      await d.close();
      await save('extension-command', c, id);
    }
  });

  it('a server error ends the turn only after pi gave up retrying it', async () => {
    const id = 'pi-warm-retry';
    const base = await scenario(id, { mode: 'error', status: 500 });
    const state = stateDir('pi');
    const c = capturing();
    const { d } = make(state, base, c);
    // pi retries a 5xx itself after `agent_end` (3 times, from 2 s, by default): shortened here.
    const settings = join(state, 'home', '.pi', 'agent', 'settings.json');
    const current = JSON.parse(readFileSync(settings, 'utf8')) as Record<string, unknown>;
    writeFileSync(
      settings,
      JSON.stringify({ ...current, retry: { enabled: true, maxRetries: 2, baseDelayMs: 50 } }),
    );
    try {
      await step(c, 'open new', d.open({ type: 'new' }));
      const r = await step(c, 'turn 500', d.turn({ prompt: 'hello', timeoutMs: 60_000 }));
      expect(r).toMatchObject({ type: 'error' });
      const types = c.messages.filter((m) => m.dir === 'in').map((m) => (m.msg as { type?: string }).type);
      // Without waiting, the turn would have ended at the first `agent_end`, before any retry.
      expect(types.filter((t) => t === 'agent_end').length).toBe(3);
      expect(types).toContain('auto_retry_end');
      expect(d.state().type).toBe('idle');
    } finally {
      await d.close();
      await save('retry', c, id);
    }
  });

  it('a model error ends the turn with its kind and keeps the process', async () => {
    const id = 'pi-warm-auth';
    const base = await scenario(id, { mode: 'error', status: 401 });
    const state = stateDir('pi');
    const c = capturing();
    const { d } = make(state, base, c);
    try {
      await step(c, 'open new', d.open({ type: 'new' }));
      const pid = d.pid();
      expect(await step(c, 'turn 401', d.turn({ prompt: 'hello', timeoutMs: 60_000 }))).toMatchObject({
        type: 'error',
        kind: 'auth',
      });
      await scenario(id, { mode: 'ok', reply: 'Fine now.' });
      expect(await step(c, 'turn after', d.turn({ prompt: 'again', timeoutMs: 60_000 }))).toMatchObject({
        type: 'ok',
        text: 'Fine now.',
      });
      expect(d.pid()).toBe(pid);
    } finally {
      await d.close();
      await save('auth', c, id);
    }
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
