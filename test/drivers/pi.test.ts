// The pi RPC driver against a real child process: a fake `pi --mode rpc` (test/fixtures/
// fake-pi-rpc.mjs) that behaves or misbehaves as each prompt asks.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { piDriver } from '../../src/drivers/pi.js';
import type { PermissionPolicy, SessionDriver } from '../../src/drivers/types.js';
import { tempDir } from '../helpers/tmp.js';
import { alive, opened, waitFor } from './helpers.js';

const fake = join(import.meta.dirname, '..', 'fixtures', 'fake-pi-rpc.mjs');
const dir = tempDir('aw-pi-drv-');
const drivers: SessionDriver[] = [];

function driver(
  opts: { permission?: PermissionPolicy; cancelGraceMs?: number; maxRecordBytes?: number } = {},
) {
  const d = piDriver({
    name: 'pi',
    process: { argv: [process.execPath, fake], cwd: dir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } },
    sessionDir: join(dir, 'sessions'),
    permission: opts.permission ?? 'deny',
    cancelGraceMs: opts.cancelGraceMs ?? 2000,
    startTimeoutMs: 15_000,
    ...(opts.maxRecordBytes ? { maxRecordBytes: opts.maxRecordBytes } : {}),
  });
  drivers.push(d);
  return d;
}

afterEach(async () => {
  await Promise.all(drivers.splice(0).map((d) => d.close()));
});

const turn = (d: SessionDriver, prompt: string, more: { timeoutMs?: number; signal?: AbortSignal } = {}) =>
  d.turn({ prompt, timeoutMs: 10_000, ...more });

describe('pi RPC driver', () => {
  it('runs two turns in one process, on one session file', async () => {
    const d = driver();
    const sid = await opened(d);
    expect(sid.startsWith(join(dir, 'sessions'))).toBe(true);
    const pid = d.pid();
    const a = await turn(d, 'hello');
    const b = await turn(d, 'again');
    expect(a).toMatchObject({ type: 'ok', text: 'turn 1 (history 1): hello', sessionId: sid });
    expect(b).toMatchObject({ type: 'ok', text: 'turn 2 (history 2): again', sessionId: sid });
    // The cold parser's usage, summed over the turn's assistant messages.
    expect(b).toMatchObject({ usage: { inputTokens: 10, outputTokens: 3, costUsd: 0.001 } });
    expect(d.pid()).toBe(pid);
    expect(d.state()).toEqual({ type: 'idle', sessionId: sid });
  });

  it('keeps U+2028 and U+2029 inside a record both ways (LF-only framing)', async () => {
    const d = driver();
    await opened(d);
    expect(await turn(d, 'sep')).toMatchObject({ type: 'ok', text: 'a\u2028b\u2029c' });
    expect(await turn(d, 'x\u2028y')).toMatchObject({ type: 'ok', text: 'turn 2 (history 2): x\u2028y' });
    expect(d.state().type).toBe('idle');
  });

  it('waits through pi auto-retry instead of ending on the first failed attempt', async () => {
    const d = driver();
    await opened(d);
    expect(await turn(d, 'flaky')).toMatchObject({ type: 'ok', text: 'Recovered.' });
    expect(d.state().type).toBe('idle');
  });

  it.each([
    ['unauthorized', 'auth'],
    ['refuse', 'auth'],
  ])('a model error (%s) is its kind, and the process stays', async (prompt, kind) => {
    const d = driver();
    await opened(d);
    const pid = d.pid();
    expect(await turn(d, prompt)).toMatchObject({ type: 'error', kind });
    expect(await turn(d, 'next')).toMatchObject({ type: 'ok' });
    expect(d.pid()).toBe(pid);
  });

  it('a prompt an extension command took without a run ends as an empty reply', async () => {
    const d = driver();
    await opened(d);
    expect(await turn(d, '/cmd')).toMatchObject({ type: 'ok', text: '' });
    expect(await turn(d, 'next')).toMatchObject({ type: 'ok', text: 'turn 1 (history 1): next' });
  });

  it('gives a steer to the running turn', async () => {
    const d = driver();
    await opened(d);
    const running = turn(d, 'wait-steer');
    await waitFor(() => d.state().type === 'busy');
    expect(d.steer('use tabs')).toEqual({ type: 'steered' });
    expect(await running).toMatchObject({ type: 'ok', text: 'steered: use tabs' });
    expect(d.steer('late')).toEqual({ type: 'idle' });
  });

  it('text steered into a turn that was then stopped goes with the next prompt (pi keeps it queued)', async () => {
    const d = driver();
    await opened(d);
    const running = turn(d, 'hang', { timeoutMs: 30_000 });
    await waitFor(() => d.state().type === 'busy');
    expect(d.steer('also this')).toEqual({ type: 'steered' });
    await d.cancel();
    expect(await running).toMatchObject({ type: 'error', kind: 'aborted' });
    expect(await turn(d, 'next')).toMatchObject({ type: 'ok', text: 'turn 2 (history 3): next + also this' });
  });

  it('kills a process that never accepts the prompt once the timeout and the grace are over', async () => {
    const d = driver({ cancelGraceMs: 300 });
    await opened(d);
    const r = await turn(d, 'silent', { timeoutMs: 300 });
    expect(r).toMatchObject({ type: 'error', kind: 'timeout' });
    expect(d.state()).toMatchObject({ type: 'broken', fault: { type: 'unresponsive', what: 'prompt' } });
  });

  it.each([
    // garbage, unknown, dup: the shared table (warm-drivers.test.ts); here the record cap.
    ['huge', 'too_large'],
  ])('ends the turn when pi sends %s, and kills the process', async (prompt, fault) => {
    const d = driver({ maxRecordBytes: 2048 });
    await opened(d);
    const pid = d.pid() as number;
    expect(await turn(d, prompt)).toMatchObject({ type: 'error', kind: 'unparseable' });
    expect(d.state()).toMatchObject({ type: 'broken', fault: { type: fault } });
    await waitFor(() => !alive(pid));
  });

  it.each([
    ['deny', 'confirm', 'confirm: {"type":"extension_ui_response","id":"ui-1","confirmed":false}'],
    ['allow', 'confirm', 'confirm: {"type":"extension_ui_response","id":"ui-1","confirmed":true}'],
    ['deny', 'select', 'select: {"type":"extension_ui_response","id":"ui-1","value":"Deny"}'],
    ['allow', 'select', 'select: {"type":"extension_ui_response","id":"ui-1","value":"Allow"}'],
  ] as const)('answers extension dialogs by policy (%s, %s)', async (permission, prompt, text) => {
    const d = driver({ permission });
    await opened(d);
    expect(await turn(d, prompt)).toMatchObject({ type: 'ok', text });
  });

  it('a new process resumes the same session file after a kill', async () => {
    const d = driver();
    const sid = await opened(d);
    await turn(d, 'one');
    process.kill(d.pid() as number, 'SIGKILL');
    await waitFor(() => d.state().type === 'broken');
    const e = driver();
    expect(await e.open({ type: 'resume', id: sid })).toEqual({ type: 'ok', sessionId: sid });
    expect(await turn(e, 'back')).toMatchObject({
      type: 'ok',
      text: 'turn 1 (history 2): back',
      sessionId: sid,
    });
  });

  it('switches the live process to another session file', async () => {
    const d = driver();
    const first = await opened(d);
    await turn(d, 'one');
    const pid = d.pid();
    const second = await opened(d);
    expect(second).not.toBe(first);
    expect(await turn(d, 'two')).toMatchObject({
      type: 'ok',
      text: 'turn 2 (history 1): two',
      sessionId: second,
    });
    expect(await d.open({ type: 'resume', id: first })).toEqual({ type: 'ok', sessionId: first });
    expect(await turn(d, 'three')).toMatchObject({ type: 'ok', text: 'turn 3 (history 2): three' });
    expect(d.pid()).toBe(pid);
  });

  it('a session named by id (not a path) is opened by a fresh process, then named by its file', async () => {
    const d = driver();
    const other = await opened(d);
    await turn(d, 'one');
    const pid = d.pid();
    const o = await d.open({ type: 'resume', id: 'abc-123' });
    // switch_session would have taken the id for a path and started an empty session.
    expect(o).toEqual({ type: 'ok', sessionId: join(dir, 'abc-123') });
    expect(d.pid()).not.toBe(pid);
    expect(d.state()).toEqual({ type: 'idle', sessionId: join(dir, 'abc-123') });
    expect(await turn(d, 'two')).toMatchObject({ type: 'ok', text: 'turn 1 (history 1): two' });
    expect(await d.open({ type: 'resume', id: other })).toEqual({ type: 'ok', sessionId: other });
    expect(await turn(d, 'three')).toMatchObject({ type: 'ok', text: 'turn 2 (history 2): three' });
  });

  it.each(['-rf', '../x', 'a b'])(
    'a session id that is neither a path nor an id (%s) is refused',
    async (id) => {
      const d = driver();
      expect(await d.open({ type: 'resume', id })).toMatchObject({
        type: 'error',
        kind: 'session_not_found',
      });
      expect(d.pid()).toBeUndefined();
    },
  );

  it('a resume of a session file that is gone is session_not_found, and starts nothing', async () => {
    const d = driver();
    const gone = join(dir, 'sessions', 'gone.jsonl');
    expect(await d.open({ type: 'resume', id: gone })).toMatchObject({
      type: 'error',
      kind: 'session_not_found',
    });
    expect(d.pid()).toBeUndefined();
    expect(existsSync(gone)).toBe(false);
  });
});
