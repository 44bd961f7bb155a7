// The pi RPC driver against the real `pi --mode rpc` (pinned version, offline, fake model server).
// With AW_CAPTURE_PI=<fixtures/agents> every record both ways is written to
// pi/warm/rpc-<case>.json: the fixtures are captured here, never typed.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { piDriver } from '../../src/drivers/pi.js';
import { requests, scenario, stateDir } from './harness.js';
import { type Capture, capturing, lastBody, packageVersion, saveCapture, step } from './warm-capture.js';
import {
  driverBase,
  type MakeOptions,
  type Started,
  type ToolCase,
  type WarmCli,
  warmScenarios,
} from './warm-suite.js';

const PKG = '@mariozechner/pi-coding-agent';

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

function make(state: string, base: string, c: Capture, o: MakeOptions = {}): Started {
  const argv = ['pi', ...(o.extra ?? [])];
  c.argv = [...argv, '--mode', 'rpc', '--session', '<file>'];
  const { options, marker, request } = driverBase('pi', state, base, c, argv, o.permission);
  const d = piDriver({ ...options, name: 'pi', sessionDir: join(request.stateDir, 'pi-sessions') });
  return { d, marker };
}

/** One of pi's own example extensions, as installed with the pinned pi. */
const example = (file: string) =>
  join(inject('clisDir'), 'pi', 'node_modules', PKG, 'examples', 'extensions', file);

// pi never asks before a tool runs; its extensions do. pi's own example permission-gate asks
// with a select (["Yes", "No"]) before a bash command with `rm -rf`.
const gate = (permission: 'deny' | 'allow', runs: boolean): ToolCase => ({
  title: `answers an extension confirm dialog by policy (${permission})`,
  id: `gate-${permission}`,
  call: { name: 'bash', input: { command: 'touch made-by-tool && rm -rf no-such-dir' } },
  make: { permission, extra: ['-e', example('permission-gate.ts')] },
  check: ({ state, c }) => {
    expect(c.messages.some((m) => (m.msg as { type?: string }).type === 'extension_ui_request')).toBe(true);
    expect(existsSync(join(state, 'work', 'made-by-tool'))).toBe(runs);
  },
});

const PI: WarmCli = {
  kind: 'pi',
  idPrefix: 'pi-warm',
  make,
  save,
  resumes: 'session file',
  turns: {
    // U+2028 inside the reply and the prompt: a reader that also splits there breaks the record.
    prompt: 'hello\u2028there',
    reply: 'First\u2028answer.',
    second: () => ({ usage: { inputTokens: expect.any(Number) } }),
    sessionIsFile: true,
    // pi keeps the text steered into the stopped turn and sends it with the next prompt.
    steer: { type: 'steered', text: 'also this', next: 'kept' },
  },
  resume: { killedKeepsSessionId: true },
  tools: [gate('deny', false), gate('allow', true)],
  auth: { recovers: 'Fine now.' },
};

describe('pi RPC driver with the real pi', () => {
  warmScenarios(PI);

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

  it('a prompt an extension command takes without a run ends as an empty reply, not at the timeout', async () => {
    const id = 'pi-warm-command';
    const base = await scenario(id, { mode: 'ok', reply: 'A real answer.' });
    const state = stateDir('pi');
    const c = capturing();
    // pi's example `/commands` lists the commands in a select dialog (dismissed) and starts no run.
    const { d } = make(state, base, c, { extra: ['-e', example('commands.ts')] });
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
});
