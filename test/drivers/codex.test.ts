// The codex driver against a real child process: a fake `codex app-server`
// (test/fixtures/fake-codex-app-server.mjs) that behaves or misbehaves as each prompt asks.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { codexDriver } from '../../src/drivers/codex.js';
import { buildDriver } from '../../src/drivers/factory.js';
import type { PermissionPolicy, SessionDriver } from '../../src/drivers/types.js';
import { tempDir } from '../helpers/tmp.js';
import { opened, waitFor } from './helpers.js';

const fake = join(import.meta.dirname, '..', 'fixtures', 'fake-codex-app-server.mjs');
const dir = tempDir('aw-codex-drv-');
const drivers: SessionDriver[] = [];

function driver(opts: { permission?: PermissionPolicy; cancelGraceMs?: number; log?: string } = {}) {
  const d = codexDriver({
    name: 'Codex',
    process: {
      argv: [process.execPath, fake],
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        FAKE_CODEX_STATE: dir,
        ...(opts.log ? { FAKE_CODEX_LOG: opts.log } : {}),
      },
    },
    permission: opts.permission ?? 'deny',
    cancelGraceMs: opts.cancelGraceMs ?? 2000,
    startTimeoutMs: 15_000,
  });
  drivers.push(d);
  return d;
}

afterEach(async () => {
  await Promise.all(drivers.splice(0).map((d) => d.close()));
});

/** Every message the fake received, parsed. */
function received(file: string): Record<string, unknown>[] {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  } catch {
    return [];
  }
}
const sent = (file: string, method: string) => received(file).filter((m) => m.method === method);
const turnInput = (file: string, n: number) =>
  (sent(file, 'turn/start')[n]?.params as { input: unknown[] } | undefined)?.input;

describe('codex app-server driver', () => {
  it('runs two turns in one process, on one thread, in codex’s dialect', async () => {
    const log = join(dir, 'two.log');
    const d = driver({ log });
    const sid = await opened(d);
    const pid = d.pid();
    const a = await d.turn({ prompt: 'hello', timeoutMs: 10_000 });
    const b = await d.turn({ prompt: 'again', timeoutMs: 10_000 });
    expect(a).toMatchObject({ type: 'ok', text: 'turn 1: hello (seen 1)', sessionId: sid });
    expect(b).toMatchObject({
      type: 'ok',
      text: 'turn 2: again (seen 2)',
      sessionId: sid,
      usage: { inputTokens: 42, outputTokens: 7 },
    });
    expect(d.pid()).toBe(pid);
    expect(d.state()).toEqual({ type: 'idle', sessionId: sid });
    const msgs = received(log);
    // codex's dialect: no "jsonrpc" field; `initialized` after the answer to `initialize`.
    expect(msgs.some((m) => 'jsonrpc' in m)).toBe(false);
    expect(msgs.map((m) => m.method).slice(0, 3)).toEqual(['initialize', 'initialized', 'thread/start']);
    // As cold `codex exec`: approval policy "never", the sandbox left to the user's config.
    expect(sent(log, 'thread/start')[0]?.params).toEqual({ cwd: dir, approvalPolicy: 'never' });
    expect(sent(log, 'turn/start')[0]?.params).toEqual({
      threadId: sid,
      input: [{ type: 'text', text: 'hello', text_elements: [] }],
    });
  });

  it('passes the model, thinking and system text on thread/start and thread/resume', async () => {
    const log = join(dir, 'settings.log');
    const settings = { model: 'gpt-x', thinking: 'low', systemText: 'Be brief.' };
    const d = codexDriver({
      name: 'Codex',
      process: {
        argv: [process.execPath, fake],
        cwd: dir,
        env: { FAKE_CODEX_LOG: log, FAKE_CODEX_STATE: dir },
      },
      permission: 'deny',
      ...settings,
    });
    drivers.push(d);
    const sid = await opened(d);
    expect(await d.open({ type: 'resume', id: sid })).toEqual({ type: 'ok', sessionId: sid });
    const expected = {
      cwd: dir,
      approvalPolicy: 'never',
      model: 'gpt-x',
      config: { model_reasoning_effort: 'low' },
      developerInstructions: 'Be brief.',
    };
    expect(sent(log, 'thread/start')[0]?.params).toEqual(expected);
    expect(sent(log, 'thread/resume')[0]?.params).toEqual({ threadId: sid, ...expected });
  });

  it("a member's thread asks for codex's read-only sandbox on start and resume", async () => {
    const log = join(dir, 'read-only.log');
    const d = codexDriver({
      name: 'Codex',
      process: {
        argv: [process.execPath, fake],
        cwd: dir,
        env: { FAKE_CODEX_LOG: log, FAKE_CODEX_STATE: dir },
      },
      permission: 'deny',
      sandbox: 'read-only',
    });
    drivers.push(d);
    const sid = await opened(d);
    expect(await d.open({ type: 'resume', id: sid })).toEqual({ type: 'ok', sessionId: sid });
    expect(sent(log, 'thread/start')[0]?.params).toMatchObject({ sandbox: 'read-only' });
    expect(sent(log, 'thread/resume')[0]?.params).toMatchObject({ threadId: sid, sandbox: 'read-only' });
  });

  it("a member's process from the factory: web search disabled and read-only on start and resume", async () => {
    const log = join(dir, 'no-network.log');
    const b = buildDriver('codex', {
      command: [process.execPath, fake],
      cwd: dir,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', FAKE_CODEX_LOG: log, FAKE_CODEX_STATE: dir },
      stateDir: dir,
      permissions: 'deny',
      readOnly: true,
      networkTools: false,
    });
    if (b.type !== 'driver') throw new Error(JSON.stringify(b));
    drivers.push(b.driver);
    const sid = await opened(b.driver);
    expect(await b.driver.open({ type: 'resume', id: sid })).toEqual({ type: 'ok', sessionId: sid });
    for (const m of ['thread/start', 'thread/resume'])
      expect(sent(log, m)[0]?.params).toMatchObject({
        sandbox: 'read-only',
        config: { web_search: 'disabled' },
      });
  });

  it("the owner's process from the factory: no web_search setting of ours", async () => {
    const log = join(dir, 'owner-network.log');
    const b = buildDriver('codex', {
      command: [process.execPath, fake],
      cwd: dir,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', FAKE_CODEX_LOG: log, FAKE_CODEX_STATE: dir },
      stateDir: dir,
    });
    if (b.type !== 'driver') throw new Error(JSON.stringify(b));
    drivers.push(b.driver);
    await opened(b.driver);
    expect(JSON.stringify(sent(log, 'thread/start')[0]?.params)).not.toContain('web_search');
  });

  it('waits for the turn even when turn/completed comes before the turn/start answer', async () => {
    const d = driver();
    await opened(d);
    expect(await d.turn({ prompt: 'late', timeoutMs: 5000 })).toMatchObject({ type: 'ok', text: '' });
    expect(await d.turn({ prompt: 'next', timeoutMs: 5000 })).toMatchObject({ type: 'ok' });
  });

  it('a straggler of the turn before is not taken into the next turn', async () => {
    const d = driver();
    await opened(d);
    await d.turn({ prompt: 'one', timeoutMs: 5000 });
    const r = await d.turn({ prompt: 'stale two', timeoutMs: 5000 });
    expect(r).toMatchObject({ type: 'ok', text: 'turn 2: stale two (seen 2)', progress: [] });
  });

  it('steers a running turn with turn/steer and the turn’s id', async () => {
    const log = join(dir, 'steer.log');
    const d = driver({ log });
    const sid = await opened(d);
    const pid = d.pid();
    expect(d.steer('too early')).toEqual({ type: 'idle' });
    const running = d.turn({ prompt: 'slow', timeoutMs: 10_000 });
    // Given before turn/start answered: sent as soon as the turn's id is known.
    expect(d.steer('first')).toEqual({ type: 'steered' });
    await waitFor(() => sent(log, 'turn/steer').length === 1);
    expect(d.steer('second')).toEqual({ type: 'steered' });
    expect(await running).toMatchObject({ type: 'ok', text: 'steered: first | second' });
    const steer = sent(log, 'turn/steer')[1]?.params as Record<string, unknown>;
    expect(steer).toMatchObject({ threadId: sid, input: [{ type: 'text', text: 'second' }] });
    // The id turn/start answered with (the fake names turns by pid and count).
    expect(steer.expectedTurnId).toBe(`turn-${pid}-1`);
    // Both were seen by the turn: nothing is carried into the next one.
    await d.turn({ prompt: 'after', timeoutMs: 10_000 });
    expect(turnInput(log, 1)).toHaveLength(1);
  });

  it('cancels a turn on /stop with turn/interrupt, keeps the process, and carries a dropped steer over', async () => {
    const log = join(dir, 'cancel.log');
    const d = driver({ log });
    await opened(d);
    const pid = d.pid();
    const stop = new AbortController();
    const running = d.turn({ prompt: 'hang', timeoutMs: 30_000, signal: stop.signal });
    await waitFor(() => sent(log, 'turn/start').length === 1);
    expect(d.steer('also this')).toEqual({ type: 'steered' });
    await waitFor(() => sent(log, 'turn/steer').length === 1);
    stop.abort();
    expect(await running).toMatchObject({ type: 'error', kind: 'aborted' });
    expect(sent(log, 'turn/interrupt')).toHaveLength(1);
    // A stopped turn takes no steer: the caller runs the text as a turn of its own.
    expect(d.state().type).toBe('idle');
    const next = await d.turn({ prompt: 'after', timeoutMs: 10_000 });
    expect(next).toMatchObject({ type: 'ok', text: 'turn 2: also this\nafter (seen 1)' });
    expect(turnInput(log, 1)).toEqual([
      { type: 'text', text: 'also this', text_elements: [] },
      { type: 'text', text: 'after', text_elements: [] },
    ]);
    expect(d.pid()).toBe(pid);
  });

  it('a failed turn is an error of its kind, and the process stays', async () => {
    const d = driver();
    await opened(d);
    expect(await d.turn({ prompt: 'fail', timeoutMs: 10_000 })).toMatchObject({
      type: 'error',
      kind: 'auth',
    });
    expect(d.state().type).toBe('idle');
  });

  it.each([
    ['deny', 'decision: "decline"'],
    ['allow', 'decision: "accept"'],
  ] as const)('answers approval requests by policy (%s), one time only', async (permission, text) => {
    const d = driver({ permission });
    await opened(d);
    expect(await d.turn({ prompt: 'ask', timeoutMs: 10_000 })).toMatchObject({ type: 'ok', text });
  });

  it('resumes a thread in a new process with thread/resume, history kept', async () => {
    const log = join(dir, 'resume.log');
    const d = driver();
    const first = await opened(d);
    await d.turn({ prompt: 'one', timeoutMs: 10_000 });
    await d.close();
    const e = driver({ log });
    expect(await e.open({ type: 'resume', id: first })).toEqual({ type: 'ok', sessionId: first });
    expect(sent(log, 'thread/resume')[0]?.params).toEqual({
      threadId: first,
      cwd: dir,
      approvalPolicy: 'never',
    });
    expect(await e.turn({ prompt: 'back', timeoutMs: 10_000 })).toMatchObject({
      type: 'ok',
      text: 'turn 1: back (seen 2)',
    });
  });

  it('reports a thread codex cannot find as session_not_found', async () => {
    const d = driver();
    expect(await d.open({ type: 'resume', id: 'gone-1' })).toMatchObject({
      type: 'error',
      kind: 'session_not_found',
    });
  });
});
