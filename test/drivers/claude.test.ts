// The claude stream-json driver against a real child process: a fake CLI speaking the pinned
// CLI's wire format (test/fixtures/fake-claude-stream.mjs), which behaves or misbehaves as each
// message asks.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { claudeDriver } from '../../src/drivers/claude.js';
import type { PermissionPolicy, SessionDriver } from '../../src/drivers/types.js';
import { tempDir } from '../helpers/tmp.js';
import { alive, opened, waitFor } from './helpers.js';

const fake = join(import.meta.dirname, '..', 'fixtures', 'fake-claude-stream.mjs');
const dir = tempDir('aw-claude-drv-');
const drivers: SessionDriver[] = [];
let n = 0;

function driver(
  opts: {
    permission?: PermissionPolicy;
    cancelGraceMs?: number;
    maxMessageBytes?: number;
    argv?: string[];
    model?: string;
    silent?: boolean;
    startTimeoutMs?: number;
  } = {},
) {
  const argvFile = join(dir, `argv-${++n}.json`);
  const d = claudeDriver({
    name: 'Claude Code',
    process: {
      argv: opts.argv ?? [process.execPath, fake],
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        FAKE_CLAUDE_ARGV: argvFile,
        ...(opts.silent ? { FAKE_CLAUDE_SILENT: '1' } : {}),
      },
    },
    permission: opts.permission ?? 'deny',
    cancelGraceMs: opts.cancelGraceMs ?? 2000,
    startTimeoutMs: opts.startTimeoutMs ?? 15_000,
    ...(opts.maxMessageBytes ? { maxMessageBytes: opts.maxMessageBytes } : {}),
    ...(opts.model ? { model: opts.model } : {}),
  });
  drivers.push(d);
  return { d, argv: () => JSON.parse(readFileSync(argvFile, 'utf8')) as string[] };
}

afterEach(async () => {
  await Promise.all(drivers.splice(0).map((d) => d.close()));
});

const UUID = '11111111-2222-4333-8444-555555555555';

describe('claude stream-json driver', () => {
  it('runs two turns in one process, on the session id it chose, with the cold flags', async () => {
    const { d, argv } = driver({ model: 'opus' });
    const sid = await opened(d);
    expect(sid).toMatch(/^[0-9a-f-]{36}$/);
    const pid = d.pid();
    const a = await d.turn({ prompt: 'hello', timeoutMs: 10_000 });
    const b = await d.turn({ prompt: 'again', timeoutMs: 10_000 });
    expect(a).toMatchObject({
      type: 'ok',
      text: 'turn 1: hello',
      sessionId: sid,
      usage: { inputTokens: 10 },
    });
    // The counter lives in the process: the second turn proves the same process answered.
    expect(b).toMatchObject({ type: 'ok', text: 'turn 2: again', sessionId: sid });
    expect(d.pid()).toBe(pid);
    expect(d.state()).toEqual({ type: 'idle', sessionId: sid });
    // argv after the program (the fake's script): exactly the cold argv plus streamed input.
    expect(argv()).toEqual([
      '-p',
      '--input-format',
      'stream-json',
      '--output-format',
      'stream-json',
      '--verbose',
      '--session-id',
      sid,
      '--model',
      'opus',
    ]);
  });

  it('uses a session id given for a new session, and --resume for a resume', async () => {
    const one = driver();
    expect(await opened(one.d, UUID)).toBe(UUID);
    expect(one.argv()).toContain('--session-id');
    const two = driver();
    expect(await two.d.open({ type: 'resume', id: UUID })).toEqual({ type: 'ok', sessionId: UUID });
    expect(two.argv().slice(-2)).toEqual(['--resume', UUID]);
    expect(await two.d.turn({ prompt: 'back', timeoutMs: 10_000 })).toMatchObject({ sessionId: UUID });
  });

  it('refuses a session id that could be read as a flag, and starts nothing', async () => {
    const { d } = driver();
    expect(await d.open({ type: 'resume', id: '--dangerously-skip-permissions' })).toMatchObject({
      type: 'error',
      kind: 'exit',
    });
    expect(d.pid()).toBeUndefined();
  });

  it('a resume of a session that does not exist is session_not_found, as cold', async () => {
    const { d } = driver();
    const r = await d.open({ type: 'resume', id: 'gone-1234' });
    expect(r).toMatchObject({ type: 'error', kind: 'session_not_found', exitCode: 1 });
    expect(d.state()).toMatchObject({ type: 'broken', fault: { type: 'exited' } });
  });

  it('splits records on LF only: U+2028 stays inside the reply', async () => {
    const { d } = driver();
    await opened(d);
    expect(await d.turn({ prompt: 'unicode', timeoutMs: 10_000 })).toMatchObject({
      type: 'ok',
      text: 'one\u2028two',
    });
  });

  it('an API error ends the turn with its kind and keeps the process', async () => {
    const { d } = driver();
    await opened(d);
    const pid = d.pid();
    expect(await d.turn({ prompt: 'api401', timeoutMs: 10_000 })).toMatchObject({
      type: 'error',
      kind: 'auth',
    });
    expect(await d.turn({ prompt: 'after', timeoutMs: 10_000 })).toMatchObject({
      type: 'ok',
      text: 'turn 2: after',
    });
    expect(d.pid()).toBe(pid);
  });

  it('/stop interrupts the turn; the process and session are kept', async () => {
    const { d } = driver();
    const sid = await opened(d);
    const pid = d.pid() as number;
    const stop = new AbortController();
    const hung = d.turn({ prompt: 'hang', timeoutMs: 10_000, signal: stop.signal });
    expect(d.state()).toEqual({ type: 'busy', sessionId: sid });
    expect(d.steer('more')).toEqual({ type: 'unsupported' });
    stop.abort();
    expect(await hung).toMatchObject({ type: 'error', kind: 'aborted', sessionId: sid });
    expect(d.state()).toEqual({ type: 'idle', sessionId: sid });
    expect(await d.turn({ prompt: 'next', timeoutMs: 10_000 })).toMatchObject({
      type: 'ok',
      text: 'turn 2: next',
    });
    expect(d.pid()).toBe(pid);
    expect(d.steer('x')).toEqual({ type: 'idle' });
  });

  it('cancel() ends the running turn as aborted', async () => {
    const { d } = driver();
    await opened(d);
    const hung = d.turn({ prompt: 'hang', timeoutMs: 10_000 });
    await d.cancel();
    expect(await hung).toMatchObject({ type: 'error', kind: 'aborted' });
    expect(d.state().type).toBe('idle');
  });

  it.each(['stubborn', 'deaf'])(
    'a turn that does not stop (%s) is killed after the grace',
    async (prompt) => {
      const { d } = driver({ cancelGraceMs: 300 });
      await opened(d);
      const pid = d.pid() as number;
      expect(await d.turn({ prompt, timeoutMs: 200 })).toMatchObject({ type: 'error', kind: 'timeout' });
      expect(d.state()).toMatchObject({ type: 'broken', fault: { type: 'unresponsive', what: 'interrupt' } });
      expect(alive(pid)).toBe(false);
      expect(await d.turn({ prompt: 'hello', timeoutMs: 1000 })).toMatchObject({
        type: 'error',
        kind: 'timeout',
      });
    },
  );

  it.each<[string, string, object]>([
    // garbage, stranger, duplicate: the shared table (warm-drivers.test.ts); here the ids and the cap.
    ['stranger', 'unparseable', { type: 'unknown_response', id: 'never-sent' }],
    ['duplicate', 'unparseable', { type: 'duplicate_response', id: 'aw-1' }],
    ['huge', 'unparseable', { type: 'too_large' }],
  ])('%s ends the turn (%s), breaks the driver and kills the process', async (prompt, kind, fault) => {
    const { d } = driver({ maxMessageBytes: 16 * 1024 });
    await opened(d);
    const pid = d.pid() as number;
    const r = await d.turn({ prompt, timeoutMs: 10_000 });
    expect(r).toMatchObject({ type: 'error', kind });
    expect(d.state()).toMatchObject({ type: 'broken', fault });
    expect(d.pid()).toBeUndefined();
    await waitFor(() => !alive(pid));
    // A broken driver refuses turns at once rather than write to a dead or lying process.
    expect(await d.turn({ prompt: 'hello', timeoutMs: 10_000 })).toMatchObject({ type: 'error', kind });
  });

  it.each<[PermissionPolicy, string]>([
    ['allow', 'answered allow'],
    ['deny', 'answered deny'],
  ])('answers can_use_tool by the %s policy', async (permission, text) => {
    const { d } = driver({ permission });
    await opened(d);
    expect(await d.turn({ prompt: 'ask', timeoutMs: 10_000 })).toMatchObject({ type: 'ok', text });
  });

  it('refuses a control request it does not support, so the turn goes on', async () => {
    const { d } = driver();
    await opened(d);
    const r = await d.turn({ prompt: 'elicit', timeoutMs: 10_000 });
    expect(r).toMatchObject({
      type: 'ok',
      text: expect.stringContaining('answered error: agentwire does not support'),
    });
  });

  it('a process that never answers the hello is given up at the start timeout and killed', async () => {
    const { d } = driver({ silent: true, startTimeoutMs: 300 });
    const r = await d.open({ type: 'new' });
    expect(r).toMatchObject({ type: 'error', kind: 'timeout' });
    expect(d.state()).toMatchObject({ type: 'broken', fault: { type: 'unresponsive', what: 'initialize' } });
  });

  it('close() during an open that waits for its hello ends the open at once', async () => {
    const { d } = driver({ silent: true, startTimeoutMs: 60_000 });
    const opening = d.open({ type: 'new' });
    await waitFor(() => d.pid() !== undefined);
    await d.close();
    expect(await opening).toMatchObject({ type: 'error', kind: 'exit' });
    expect(d.state()).toEqual({ type: 'closed' });
  });

  it('a second open is refused, even while the first is starting (one process, one session)', async () => {
    const { d } = driver();
    const first = d.open({ type: 'new' });
    expect(await d.open({ type: 'new' })).toMatchObject({ type: 'error', kind: 'exit' });
    expect(await first).toMatchObject({ type: 'ok' });
    expect(await d.open({ type: 'new' })).toMatchObject({ type: 'error', kind: 'exit' });
  });
});
