// One table of behaviours every warm driver must have, run against each of the four (claude
// stream-json, pi rpc, codex app-server, ACP) over a real child process: the small fake CLI of its
// protocol (test/fixtures/fake-*.mjs, built from the captures under fixtures/agents/<cli>/warm/),
// which behaves or misbehaves as the prompt's first word asks. What is particular to one protocol
// (steering, approvals, session files, resume) stays in that driver's own test file.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acpDriver } from '../../src/drivers/acp.js';
import { claudeDriver } from '../../src/drivers/claude.js';
import { codexDriver } from '../../src/drivers/codex.js';
import { piDriver } from '../../src/drivers/pi.js';
import type { DriverProcess, ProgressEvent, SessionDriver } from '../../src/drivers/types.js';
import { tempDir } from '../helpers/tmp.js';
import { alive, waitFor } from './helpers.js';

const FIX = join(import.meta.dirname, '..', 'fixtures');

interface Made {
  cancelGraceMs?: number;
  /** Replaces the fake: a program that is not installed. */
  argv?: string[];
}

interface Kind {
  name: string;
  make(dir: string, o: Made): SessionDriver;
  /** The reply to the n-th turn of a process, for the default behaviour. */
  reply(n: number, prompt: string): string;
  /** The reply to "after", the turn after a stopped one (codex counts only finished turns). */
  afterStop: string;
  /** The `tool` turn: a progress message, then "Done." with one file. */
  tool: { media: string; progress: string };
  /** The words that make the fake break its protocol, by the fault each one is. */
  broken: [word: string, fault: string][];
}

const env = (extra: Record<string, string> = {}) => ({ PATH: process.env.PATH ?? '/usr/bin:/bin', ...extra });
const proc = (dir: string, o: Made, fake: string, extra?: Record<string, string>): DriverProcess => ({
  argv: o.argv ?? [process.execPath, join(FIX, fake)],
  cwd: dir,
  env: env(extra),
});
const common = (o: Made) => ({
  permission: 'deny' as const,
  cancelGraceMs: o.cancelGraceMs ?? 2000,
  startTimeoutMs: 15_000,
});

// The fakes' words for a line that is not JSON, a response to a request never sent, and a second one.
const BREAKS: Kind['broken'] = [
  ['garbage', 'garbage'],
  ['stranger', 'unknown_response'],
  ['duplicate', 'duplicate_response'],
];

const KINDS: Kind[] = [
  {
    name: 'claude',
    make: (dir, o) =>
      claudeDriver({ name: 'Claude Code', process: proc(dir, o, 'fake-claude-stream.mjs'), ...common(o) }),
    reply: (n, p) => `turn ${n}: ${p}`,
    afterStop: 'turn 2: after',
    tool: { media: './a.png', progress: 'Looking at the files.' },
    broken: BREAKS,
  },
  {
    name: 'pi',
    make: (dir, o) =>
      piDriver({
        name: 'pi',
        process: proc(dir, o, 'fake-pi-rpc.mjs'),
        sessionDir: join(dir, 'sessions'),
        ...common(o),
      }),
    reply: (n, p) => `turn ${n} (history ${n}): ${p}`,
    afterStop: 'turn 2 (history 2): after',
    tool: { media: './a.png', progress: 'Looking at the files.' },
    broken: [
      ['garbage', 'garbage'],
      ['unknown', 'unknown_response'],
      ['dup', 'duplicate_response'],
    ],
  },
  {
    name: 'codex',
    make: (dir, o) =>
      codexDriver({
        name: 'Codex',
        process: proc(dir, o, 'fake-codex-app-server.mjs', { FAKE_CODEX_STATE: dir }),
        ...common(o),
      }),
    reply: (n, p) => `turn ${n}: ${p} (seen ${n})`,
    afterStop: 'turn 2: after (seen 1)',
    tool: { media: './out.png', progress: 'Let me look.' },
    broken: BREAKS,
  },
  {
    name: 'ACP',
    make: (dir, o) =>
      acpDriver({ name: 'Fake ACP', process: proc(dir, o, 'fake-acp-agent.mjs'), ...common(o) }),
    reply: (n, p) => `turn ${n}: ${p}`,
    afterStop: 'turn 2: after',
    tool: { media: './a.png', progress: 'Looking at the files.' },
    broken: BREAKS,
  },
];

const drivers: SessionDriver[] = [];
afterEach(async () => {
  await Promise.all(drivers.splice(0).map((d) => d.close()));
});

describe.each(KINDS)('every warm driver: $name', (k) => {
  const make = (o: Made = {}) => {
    const d = k.make(tempDir('aw-warm-drv-'), o);
    drivers.push(d);
    return d;
  };
  const opened = async (o: Made = {}) => {
    const d = make(o);
    const r = await d.open({ type: 'new' });
    if (r.type !== 'ok') throw new Error(`open failed: ${r.message} ${r.detail ?? ''}`);
    return { d, sid: r.sessionId, pid: d.pid() as number };
  };
  const turn = (d: SessionDriver, prompt: string, more: { timeoutMs?: number; signal?: AbortSignal } = {}) =>
    d.turn({ prompt, timeoutMs: 10_000, ...more });

  it('starts once and runs two turns in the same process (it stayed warm)', async () => {
    const { d, sid, pid } = await opened();
    expect(alive(pid)).toBe(true);
    expect(await turn(d, 'hello')).toMatchObject({ type: 'ok', text: k.reply(1, 'hello'), sessionId: sid });
    expect(await turn(d, 'again')).toMatchObject({ type: 'ok', text: k.reply(2, 'again'), sessionId: sid });
    expect(d.pid()).toBe(pid);
    expect(d.state()).toEqual({ type: 'idle', sessionId: sid });
  });

  it('tells its progress listener about the tool call, and a listener that throws breaks nothing', async () => {
    const { d } = await opened();
    const seen: ProgressEvent[] = [];
    const r = await d.turn({
      prompt: 'tool',
      timeoutMs: 10_000,
      onEvent: (ev) => {
        seen.push(ev);
        throw new Error('a broken status line');
      },
    });
    expect(r).toMatchObject({ type: 'ok', text: 'Done.' });
    expect(seen.filter((e) => e.type === 'tool')).toEqual([
      expect.objectContaining({ type: 'tool', detail: 'ls', at: expect.any(Number) }),
    ]);
  });

  it('streams progress and media as the cold runner does', async () => {
    const { d } = await opened();
    const progress: string[] = [];
    const r = await d.turn({ prompt: 'tool', timeoutMs: 10_000, onProgress: (t) => progress.push(t) });
    expect(r).toMatchObject({
      type: 'ok',
      text: 'Done.',
      media: [k.tool.media],
      progress: [k.tool.progress],
    });
    expect(progress).toEqual([k.tool.progress]);
  });

  it('/stop ends the turn as aborted; the process stays and answers the next turn', async () => {
    const { d, pid } = await opened();
    const stop = new AbortController();
    const running = turn(d, 'hang', { timeoutMs: 30_000, signal: stop.signal });
    await waitFor(() => d.state().type === 'busy');
    stop.abort();
    expect(await running).toMatchObject({ type: 'error', kind: 'aborted' });
    expect(await turn(d, 'after')).toMatchObject({ type: 'ok', text: k.afterStop });
    expect(d.pid()).toBe(pid);
  });

  it('a turn past its time limit is stopped as timeout; a process that stops is kept', async () => {
    const { d, pid } = await opened();
    expect(await turn(d, 'hang', { timeoutMs: 300 })).toMatchObject({ type: 'error', kind: 'timeout' });
    expect(d.state().type).toBe('idle');
    expect(d.pid()).toBe(pid);
  });

  it('a process deaf to the stop is killed after the grace, and the driver says it must be replaced', async () => {
    const { d, pid } = await opened({ cancelGraceMs: 300 });
    expect(await turn(d, 'deaf', { timeoutMs: 300 })).toMatchObject({ type: 'error', kind: 'timeout' });
    expect(d.state()).toMatchObject({ type: 'broken', fault: { type: 'unresponsive' } });
    await waitFor(() => !alive(pid));
    expect(await turn(d, 'next', { timeoutMs: 1000 })).toMatchObject({ type: 'error' });
  });

  it('a crash mid-turn ends the turn as exit, with the last of stderr as its detail', async () => {
    const { d } = await opened();
    expect(await turn(d, 'die')).toMatchObject({
      type: 'error',
      kind: 'exit',
      exitCode: 3,
      detail: 'boom: the fake died',
    });
    expect(d.state()).toMatchObject({ type: 'broken', fault: { type: 'exited', exitCode: 3 } });
    expect(d.pid()).toBeUndefined();
  });

  it('an exit while idle breaks the driver, and the next turn is refused at once', async () => {
    const { d, pid } = await opened();
    process.kill(pid, 'SIGKILL');
    await waitFor(() => d.state().type === 'broken');
    expect(d.state()).toMatchObject({ type: 'broken', fault: { type: 'exited', signal: 'SIGKILL' } });
    expect(d.pid()).toBeUndefined();
    expect(await turn(d, 'hello')).toMatchObject({ type: 'error', kind: 'exit' });
  });

  it.each(k.broken)(
    'a protocol break (%s) ends the turn, breaks the driver and kills the process',
    async (word, fault) => {
      const { d, pid } = await opened();
      expect(await turn(d, word)).toMatchObject({ type: 'error', kind: 'unparseable' });
      expect(d.state()).toMatchObject({ type: 'broken', fault: { type: fault } });
      await waitFor(() => !alive(pid));
    },
  );

  it('close() mid-turn ends the turn as aborted and kills the process', async () => {
    const { d, pid } = await opened();
    const running = turn(d, 'deaf', { timeoutMs: 30_000 });
    await waitFor(() => d.state().type === 'busy');
    await d.close();
    expect(await running).toMatchObject({ type: 'error', kind: 'aborted' });
    expect(alive(pid)).toBe(false);
    expect(d.state()).toEqual({ type: 'closed' });
  });

  it('close() mid-turn also ends what the process started in a session of its own (setsid)', async () => {
    const { d } = await opened();
    const pidFile = join(tempDir('aw-warm-detach-'), 'sleeper.pid');
    const running = turn(d, `detachhang ${pidFile}`, { timeoutMs: 30_000 });
    await waitFor(() => existsSync(pidFile));
    const sleeper = Number(readFileSync(pidFile, 'utf8'));
    expect(alive(sleeper)).toBe(true);
    await d.close();
    expect(await running).toMatchObject({ type: 'error' });
    await waitFor(() => !alive(sleeper));
  });

  it('close() ends an idle process', async () => {
    const { d, pid } = await opened();
    await d.close();
    expect(alive(pid)).toBe(false);
    expect(d.state()).toEqual({ type: 'closed' });
  });

  it('a program that is not installed is not_installed, and nothing runs', async () => {
    const d = make({ argv: ['aw-no-such-agent-xyz'] });
    expect(await d.open({ type: 'new' })).toMatchObject({ type: 'error', kind: 'not_installed' });
    expect(d.pid()).toBeUndefined();
    expect(d.state()).toMatchObject({ type: 'broken', fault: { type: 'start_failed' } });
  });
});
