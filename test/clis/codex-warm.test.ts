// The codex driver against the real `codex app-server` (pinned version, offline, fake model
// server). With AW_CAPTURE_CODEX=<fixtures/agents> every protocol message both ways is written to
// codex/warm/app-server-<case>.json: the fixtures are captured here, never typed.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { getSpec } from '../../src/agents/registry.js';
import { newSession } from '../../src/agents/resolve.js';
import { APP_SERVER_ARGS, codexDriver } from '../../src/drivers/codex.js';
import type { PermissionPolicy } from '../../src/drivers/types.js';
import { runCommandReply } from '../../src/runner/run-command-reply.js';
import { requests, scenario, stateDir, turn, waitNoLeftovers } from './harness.js';
import { type Capture, capturing, lastBody, saveCapture, step } from './warm-capture.js';

const argv = ['codex', ...APP_SERVER_ARGS];

const save = (name: string, c: Capture, scenarioId: string): Promise<void> =>
  saveCapture(c, {
    out: process.env.AW_CAPTURE_CODEX,
    kind: 'codex',
    file: `app-server-${name}`,
    version: () =>
      execFileSync(join(inject('clisDir'), 'bin', 'codex'), ['--version'], { encoding: 'utf8' }).trim(),
    argv,
    scenario: scenarioId,
  });

describe('codex app-server driver with the real codex', () => {
  const make = (
    state: string,
    base: string,
    c: Capture,
    permission: PermissionPolicy = 'deny',
    settings: { model?: string; thinking?: string; systemText?: string } = {},
  ) => {
    const { request, marker } = turn('codex', state, base, '', { type: 'new' }, 60_000);
    const d = codexDriver({
      name: 'Codex',
      process: {
        argv,
        cwd: request.cwd,
        env: { ...request.env, PATH: `${inject('clisDir')}/bin:${process.env.PATH}` },
      },
      permission,
      startTimeoutMs: 60_000,
      cancelGraceMs: 10_000,
      tap: (dir, msg) => c.messages.push({ dir, msg }),
      ...settings,
    });
    return { d, marker };
  };

  it('two turns in one process, the second sees the first; a steer and a stop mid-turn, then one more turn', async () => {
    const id = 'codex-warm-turns';
    const base = await scenario(id, { mode: 'ok', reply: 'First answer.' });
    const state = stateDir('codex');
    const c = capturing();
    const { d, marker } = make(state, base, c);
    try {
      const o = (await step(c, 'open new', d.open({ type: 'new' }))) as { type: string; sessionId: string };
      expect(o.type).toBe('ok');
      const pid = d.pid();
      const a = await step(c, 'turn hello', d.turn({ prompt: 'hello', timeoutMs: 60_000 }));
      expect(a).toMatchObject({ type: 'ok', text: 'First answer.', sessionId: o.sessionId });
      await scenario(id, { mode: 'ok', reply: 'Second answer.' });
      const b = await step(c, 'turn again', d.turn({ prompt: 'second question', timeoutMs: 60_000 }));
      expect(b).toMatchObject({ type: 'ok', text: 'Second answer.' });
      expect(d.pid()).toBe(pid);
      // The model's last request carries the first turn: the thread kept its history.
      const body = await lastBody(id);
      expect(body).toContain('hello');
      expect(body).toContain('First answer.');

      await scenario(id, { mode: 'hang' });
      const stop = new AbortController();
      const before = (await requests(id)).length;
      const hung = d.turn({ prompt: 'this one hangs', timeoutMs: 60_000, signal: stop.signal });
      await waitFor(async () => (await requests(id)).length > before);
      expect(d.steer('steered into the hung turn')).toEqual({ type: 'steered' });
      await waitFor(async () =>
        c.messages.some((m) => m.dir === 'in' && isResponseTo(m.msg, c, 'turn/steer')),
      );
      stop.abort();
      expect(await step(c, 'turn stopped', hung)).toMatchObject({ type: 'error', kind: 'aborted' });
      expect(d.state().type).toBe('idle');
      await scenario(id, { mode: 'ok', reply: 'Third answer.' });
      const third = await step(c, 'turn after stop', d.turn({ prompt: 'after the stop', timeoutMs: 60_000 }));
      expect(third).toMatchObject({ type: 'ok', text: 'Third answer.' });
      expect(d.pid()).toBe(pid);
      // codex drops input steered into a turn that is then interrupted; the driver carried it into
      // this turn, so the model sees it (once).
      const after = await lastBody(id);
      expect(after.split('steered into the hung turn').length - 1).toBe(1);
      expect(after).toContain('after the stop');
      c.steps.push({ step: 'idle group RSS (KiB)', result: groupRssKb(pid as number) });
    } finally {
      await d.close();
      await save('turns', c, id);
    }
    expect(await waitNoLeftovers(marker)).toEqual([]);
  });

  it('a steer reaches the running turn at its next model call, and is not repeated after it', async () => {
    const id = 'codex-warm-steer';
    const base = await scenario(id, {
      mode: 'tool',
      reply: 'After the tool.',
      tool: { name: 'exec_command', input: { cmd: 'sleep 3' } },
    });
    const state = stateDir('codex');
    const c = capturing();
    const { d } = make(state, base, c, 'allow');
    try {
      await step(c, 'open new', d.open({ type: 'new' }));
      const before = (await requests(id)).length;
      const running = d.turn({ prompt: 'run the slow tool', timeoutMs: 60_000 });
      await waitFor(async () => (await requests(id)).length > before);
      expect(d.steer('a word mid-turn')).toEqual({ type: 'steered' });
      expect(await step(c, 'turn steered', running)).toMatchObject({ type: 'ok', text: 'After the tool.' });
      expect(await lastBody(id)).toContain('a word mid-turn');
      await scenario(id, { mode: 'ok', reply: 'Plain.' });
      await step(c, 'turn next', d.turn({ prompt: 'next', timeoutMs: 60_000 }));
      const starts = c.messages.filter((m) => m.dir === 'out' && method(m.msg) === 'turn/start');
      expect(JSON.stringify(starts.at(-1))).not.toContain('a word mid-turn');
    } finally {
      await d.close();
      await save('steer', c, id);
    }
  });

  it('a process killed mid-turn is replaced by one that resumes the thread', async () => {
    const id = 'codex-warm-killed';
    const base = await scenario(id, { mode: 'ok', reply: 'Remember me.' });
    const state = stateDir('codex');
    const c = capturing();
    const first = make(state, base, c);
    const o = (await step(c, 'open new', first.d.open({ type: 'new' }))) as { type: 'ok'; sessionId: string };
    expect(o.type).toBe('ok');
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
      expect(again).toMatchObject({ type: 'ok', text: 'Back again.' });
      expect(await lastBody(id)).toContain('Remember me.');
    } finally {
      await second.d.close();
      await save('killed-resume', c, id);
    }
  });

  it('a thread closed cleanly is resumed by a new process (a relay restart)', async () => {
    const id = 'codex-warm-restart';
    const base = await scenario(id, { mode: 'ok', reply: 'Remember me.' });
    const state = stateDir('codex');
    const c = capturing();
    const first = make(state, base, c);
    const o = (await step(c, 'open new', first.d.open({ type: 'new' }))) as { type: 'ok'; sessionId: string };
    await step(c, 'turn hello', first.d.turn({ prompt: 'hello', timeoutMs: 60_000 }));
    await first.d.close();
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
      expect(await lastBody(id)).toContain('Remember me.');
      const gone = await step(
        c,
        'open unknown',
        second.d.open({ type: 'resume', id: '01a21605-0000-7000-8000-000000000000' }),
      );
      expect(gone).toMatchObject({ type: 'error', kind: 'session_not_found' });
    } finally {
      await second.d.close();
      await save('restart-resume', c, id);
    }
  });

  it('a shell tool under the deny policy runs as cold codex exec would (approval never, config sandbox)', async () => {
    const id = 'codex-warm-tool';
    const base = await scenario(id, {
      mode: 'tool',
      reply: 'After the tool.',
      tool: { name: 'exec_command', input: { cmd: 'touch made-by-tool' } },
    });
    const state = stateDir('codex');
    const c = capturing();
    const { d } = make(state, base, c, 'deny');
    try {
      expect(await step(c, 'open new', d.open({ type: 'new' }))).toMatchObject({ type: 'ok' });
      const r = await step(c, 'turn tool', d.turn({ prompt: 'run the tool', timeoutMs: 60_000 }));
      expect(r).toMatchObject({ type: 'ok', text: 'After the tool.' });
      // approvalPolicy "never": codex asks nothing, as `codex exec` asks nothing.
      expect(c.messages.filter((m) => m.dir === 'in' && isRequest(m.msg))).toEqual([]);
      c.steps.push({ step: 'file written', result: existsSync(join(state, 'work', 'made-by-tool')) });
    } finally {
      await d.close();
      await save('tool-deny', c, id);
    }
    // The same tool call through cold `codex exec`, exactly as the relay runs it: same outcome.
    const cold = stateDir('codex');
    const spec = getSpec('codex');
    const t = turn('codex', cold, base, 'run the tool', newSession(spec), 60_000);
    expect(await runCommandReply(spec, t.request)).toMatchObject({ type: 'ok', text: 'After the tool.' });
    expect(existsSync(join(state, 'work', 'made-by-tool'))).toBe(
      existsSync(join(cold, 'work', 'made-by-tool')),
    );
  });

  it('takes the model, thinking and system text the cold flags give, on a new and a resumed thread', async () => {
    const id = 'codex-warm-settings';
    const base = await scenario(id, { mode: 'ok', reply: 'Configured.' });
    const state = stateDir('codex');
    const c = capturing();
    const system = `-Answer as agentwire-${process.pid}.`;
    const settings = { model: 'gpt-5.5', thinking: 'low', systemText: system };
    const first = make(state, base, c, 'deny', settings);
    const o = (await step(c, 'open new', first.d.open({ type: 'new' }))) as { type: 'ok'; sessionId: string };
    expect(o.type).toBe('ok');
    expect(await step(c, 'turn', first.d.turn({ prompt: 'hello', timeoutMs: 60_000 }))).toMatchObject({
      type: 'ok',
      text: 'Configured.',
    });
    await first.d.close();
    const body = (await requests(id)).at(-1)?.body as Record<string, unknown>;
    expect(body.model).toBe('gpt-5.5');
    expect(body.reasoning).toMatchObject({ effort: 'low' });
    expect(JSON.stringify(body)).toContain(system);
    const second = make(state, base, c, 'deny', settings);
    try {
      await step(c, 'open resume', second.d.open({ type: 'resume', id: o.sessionId }));
      await step(c, 'turn resumed', second.d.turn({ prompt: 'again', timeoutMs: 60_000 }));
      const again = (await requests(id)).at(-1)?.body as Record<string, unknown>;
      expect(again.reasoning).toMatchObject({ effort: 'low' });
      expect(JSON.stringify(again)).toContain(system);
    } finally {
      await second.d.close();
      await save('settings', c, id);
    }
  });

  it('a model error ends the turn with its kind and keeps the process', async () => {
    const id = 'codex-warm-auth';
    const base = await scenario(id, { mode: 'error', status: 401 });
    const state = stateDir('codex');
    const c = capturing();
    const { d } = make(state, base, c);
    try {
      await step(c, 'open new', d.open({ type: 'new' }));
      const r = await step(c, 'turn 401', d.turn({ prompt: 'hello', timeoutMs: 60_000 }));
      expect(r).toMatchObject({ type: 'error', kind: 'auth' });
      expect(d.state().type).toBe('idle');
    } finally {
      await d.close();
      await save('auth', c, id);
    }
  });
});

const method = (m: unknown) => (m as { method?: unknown }).method;
const isRequest = (m: unknown) => typeof method(m) === 'string' && 'id' in (m as object);

/** Whether `m` answers a request of `name` that the driver sent. */
function isResponseTo(m: unknown, c: Capture, name: string): boolean {
  const id = (m as { id?: unknown }).id;
  if (method(m) !== undefined || id === undefined) return false;
  return c.messages.some(
    (x) => x.dir === 'out' && method(x.msg) === name && (x.msg as { id: unknown }).id === id,
  );
}

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

async function waitFor(ok: () => Promise<boolean> | boolean, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
