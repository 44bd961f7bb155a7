// The ACP driver against a real child process: a fake agent built with the library's agent side
// (test/fixtures/fake-acp-agent.mjs), which behaves or misbehaves as each prompt asks.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acpDriver } from '../../src/drivers/acp.js';
import type { Tap } from '../../src/drivers/acp-transport.js';
import type { PermissionPolicy, SessionDriver } from '../../src/drivers/types.js';
import { tempDir } from '../helpers/tmp.js';
import { opened, waitFor } from './helpers.js';

const fake = join(import.meta.dirname, '..', 'fixtures', 'fake-acp-agent.mjs');
const dir = tempDir('aw-acp-');
const drivers: SessionDriver[] = [];

function driver(
  opts: {
    permission?: PermissionPolicy;
    cancelGraceMs?: number;
    log?: string;
    env?: Record<string, string>;
    tap?: Tap;
  } = {},
) {
  const d = acpDriver({
    name: 'Fake ACP',
    process: {
      argv: [process.execPath, fake],
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        ...(opts.log ? { FAKE_ACP_LOG: opts.log } : {}),
        ...opts.env,
      },
    },
    permission: opts.permission ?? 'deny',
    cancelGraceMs: opts.cancelGraceMs ?? 2000,
    startTimeoutMs: 15_000,
    ...(opts.tap ? { tap: opts.tap } : {}),
  });
  drivers.push(d);
  return d;
}

afterEach(async () => {
  await Promise.all(drivers.splice(0).map((d) => d.close()));
});

describe('ACP driver', () => {
  it('runs two turns in one process, on one session', async () => {
    const d = driver();
    const sid = await opened(d);
    const pid = d.pid();
    const a = await d.turn({ prompt: 'hello', timeoutMs: 10_000 });
    const b = await d.turn({ prompt: 'again', timeoutMs: 10_000 });
    expect(a).toMatchObject({ type: 'ok', text: 'turn 1: hello', sessionId: sid });
    // The counter lives in the process: the second turn proves the same process answered.
    expect(b).toMatchObject({ type: 'ok', text: 'turn 2: again', sessionId: sid });
    expect(d.pid()).toBe(pid);
    expect(d.state()).toEqual({ type: 'idle', sessionId: sid });
  });

  it.each([
    ['quiet', { type: 'ok', text: '', media: [], progress: [] }],
    ['tired', { type: 'error', kind: 'unparseable' }],
  ])('a turn that ends without text (%s)', async (prompt, expected) => {
    const d = driver();
    await opened(d);
    expect(await d.turn({ prompt, timeoutMs: 10_000 })).toMatchObject(expected);
    expect(d.state().type).toBe('idle');
  });

  it('cancels a turn on /stop, keeps the process, and runs the next turn in it', async () => {
    const log = join(dir, 'cancel.log');
    const d = driver({ log });
    await opened(d);
    const pid = d.pid();
    const stop = new AbortController();
    const running = d.turn({ prompt: 'hang', timeoutMs: 30_000, signal: stop.signal });
    await waitFor(() => readLog(log).includes('session/prompt hang'));
    expect(d.steer('more')).toEqual({ type: 'unsupported' });
    stop.abort();
    expect(await running).toMatchObject({ type: 'error', kind: 'aborted' });
    expect(readLog(log)).toContain('session/cancel');
    const next = await d.turn({ prompt: 'after', timeoutMs: 10_000 });
    expect(next).toMatchObject({ type: 'ok', text: 'turn 2: after' });
    expect(d.pid()).toBe(pid);
  });

  it('after a cancel, an empty end with no model activity breaks the session (stale), never a reply', async () => {
    const log = join(dir, 'stale.log');
    // Not right after a cancel: an empty turn (this fake's `quiet`) is a reply, as it is.
    const calm = driver({ log });
    await opened(calm);
    expect(await calm.turn({ prompt: 'quiet', timeoutMs: 10_000 })).toMatchObject({ type: 'ok', text: '' });
    expect(calm.state().type).toBe('idle');
    await calm.close();

    const d = driver({ log });
    await opened(d);
    const stop = new AbortController();
    const running = d.turn({ prompt: 'hang', timeoutMs: 30_000, signal: stop.signal });
    await waitFor(() => readLog(log).includes('session/prompt hang'));
    stop.abort();
    await running;
    // Right after the cancel the same empty end is taken for the stale answer it may be: the
    // session is broken so the pool loads it again elsewhere; the prompt is not sent twice here.
    const r = await d.turn({ prompt: 'quiet', timeoutMs: 10_000 });
    expect(r).toMatchObject({ type: 'error', kind: 'exit' });
    expect(d.state()).toMatchObject({ type: 'broken', fault: { type: 'stale' } });
    expect(
      readLog(log)
        .split('\n')
        .filter((l) => l === 'session/prompt quiet'),
    ).toHaveLength(2);
  });

  it.each([
    ['deny', 'permission: no'],
    ['allow', 'permission: yes'],
  ] as const)('answers permission requests by policy (%s), one time only', async (permission, text) => {
    const d = driver({ permission });
    await opened(d);
    expect(await d.turn({ prompt: 'ask', timeoutMs: 10_000 })).toMatchObject({ type: 'ok', text });
  });

  it('resumes a session with session/load, ignoring the replayed history', async () => {
    const d = driver();
    const first = await opened(d);
    await d.close();
    const e = driver();
    expect(await e.open({ type: 'resume', id: first })).toEqual({ type: 'ok', sessionId: first });
    expect(await e.turn({ prompt: 'back', timeoutMs: 10_000 })).toMatchObject({
      type: 'ok',
      text: 'turn 1: back',
    });
  });

  // The agent replays after its answer (as gemini does). Two ways the wait for the end of the
  // replay once let the old reply into the next turn's: an agent slow to send it, and a relay whose
  // loop was held (in a callback after the poll) while it came, so that the timer ending the wait
  // ran before the replay, already in the pipe, was read.
  const busy = (ms: number) => {
    const end = performance.now() + ms;
    while (performance.now() < end) {
      // held, as a relay busy with a burst of webhooks
    }
  };
  it.each([
    ['a replay 300 ms after the answer', { FAKE_ACP_REPLAY_DELAY_MS: '300' }, false],
    ['the loop held 700 ms while the replay arrives', { FAKE_ACP_REPLAY_DELAY_MS: '100' }, true],
  ] as const)("resumes with a late replay (%s): not the next turn's reply", async (_, env, hold) => {
    const d = driver();
    const first = await opened(d);
    await d.close();
    const ids = new Set<unknown>();
    const tap: Tap = (direction, m) => {
      const msg = m as { id?: unknown; method?: string; result?: unknown };
      if (direction === 'out' && msg.method === 'session/load') ids.add(msg.id);
      // After the driver has begun its wait, from the check phase: the next loop runs timers first.
      if (hold && direction === 'in' && ids.has(msg.id) && msg.result !== undefined)
        setTimeout(() => setImmediate(() => busy(700)), 20);
    };
    const e = driver({ env, tap });
    expect(await e.open({ type: 'resume', id: first })).toEqual({ type: 'ok', sessionId: first });
    // A turn that takes 400 ms: a replay still on its way when it starts would land inside it.
    expect(await e.turn({ prompt: 'slow back', timeoutMs: 10_000 })).toMatchObject({
      type: 'ok',
      text: 'turn 1: slow back',
    });
  });

  it('reports a session the agent cannot load as session_not_found', async () => {
    const d = driver();
    expect(await d.open({ type: 'resume', id: 'gone-1' })).toMatchObject({
      type: 'error',
      kind: 'session_not_found',
    });
  });

  it('cancel() ends the running turn as stopped and keeps the process', async () => {
    const log = join(dir, 'cancel-call.log');
    const d = driver({ log });
    await opened(d);
    const running = d.turn({ prompt: 'hang', timeoutMs: 30_000 });
    await waitFor(() => readLog(log).includes('session/prompt hang'));
    await d.cancel();
    expect(await running).toMatchObject({ type: 'error', kind: 'aborted' });
    expect(d.state().type).toBe('idle');
    expect(await d.turn({ prompt: 'next', timeoutMs: 10_000 })).toMatchObject({
      type: 'ok',
      text: 'turn 2: next',
    });
  });
});

function readLog(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
