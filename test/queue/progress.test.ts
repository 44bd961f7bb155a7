// A run's status message through the queue, with a warm claude (the fake stream-json CLI, a real
// child process) making 30 tool calls in a short span: the ProgressPort is started once, edited a
// few times (the throttle), finished once with the summary, and the answer still goes out once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import type { ProgressSettings } from '../../src/config/schema-progress.js';
import type { ChatKey } from '../../src/core/types.js';
import { createWarmPool, type WarmPool } from '../../src/drivers/pool.js';
import { createLogger } from '../../src/log.js';
import { agentResolver } from '../../src/queue/adapters.js';
import type { ProgressEnd, ProgressPort, ProgressRun } from '../../src/queue/progress-port.js';
import { type Harness, harness } from './helpers.js';

const CLAUDE = join(import.meta.dirname, '..', 'fixtures', 'fake-claude-stream.mjs');
const REPLAY = join(import.meta.dirname, '..', 'fixtures', 'replay-cli.mjs');
const CAPTURE = join(import.meta.dirname, '..', '..', 'fixtures', 'agents', 'claude', 'tool.json');

type Call =
  | { type: 'start' | 'update'; run: ProgressRun; text: string; at: number }
  | { type: 'finish'; run: ProgressRun; end: ProgressEnd; at: number };

/** Records every call; each takes a little while, as an edit over the network does. */
class RecordingPort implements ProgressPort {
  calls: Call[] = [];
  inFlight = 0;
  overlapped = false;
  constructor(private readonly intervalMs: number | undefined) {}
  editIntervalMs = (_chat: ChatKey) => this.intervalMs;
  private async call(c: Call): Promise<void> {
    if (this.inFlight > 0) this.overlapped = true;
    this.inFlight++;
    this.calls.push(c);
    await new Promise<void>((r) => setImmediate(r));
    this.inFlight--;
  }
  start = (run: ProgressRun, text: string) => this.call({ type: 'start', run, text, at: Date.now() });
  update = (run: ProgressRun, text: string) => this.call({ type: 'update', run, text, at: Date.now() });
  finish = (run: ProgressRun, end: ProgressEnd) => this.call({ type: 'finish', run, end, at: Date.now() });
  of = (type: Call['type']) => this.calls.filter((c) => c.type === type);
}

let h: Harness | undefined;
let pool: WarmPool | undefined;
let dir = '';
afterEach(async () => {
  await pool?.shutdown(5000);
  pool = undefined;
  h?.cleanup();
  h = undefined;
  rmSync(dir, { recursive: true, force: true });
});

function setup(port: ProgressPort, settings: ProgressSettings | undefined) {
  dir = mkdtempSync(join(tmpdir(), 'aw-progress-q-'));
  const raw = {
    agent: { kind: 'claude', cwd: dir, timeoutSeconds: 60, command: [process.execPath, CLAUDE] },
  };
  const log = createLogger({ level: 'silent' });
  pool = createWarmPool({ maxProcesses: 1, idleMs: 60_000, log, cold: () => undefined });
  const paths = {
    home: dir,
    configFile: join(dir, 'c.json5'),
    workspace: dir,
    agentState: join(dir, 'st'),
  } as never;
  h = harness({
    config: raw,
    resolver: agentResolver(
      configSchema.parse(raw),
      paths,
      { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      log,
      pool,
    ),
    warm: pool,
    progress: { port, settings: () => settings },
  });
  return h;
}

describe('the status message of a run', () => {
  it('30 tool calls in a short span: one start, at most 10 edits, one finish, the answer once', async () => {
    const port = new RecordingPort(200);
    const x = setup(port, { mode: 'status', end: 'summary' });
    const t0 = Date.now();
    await x.send('tools 30 40');
    await x.channel.untilSent(1);
    await x.queue.whenIdle();
    await vi.waitFor(() => expect(port.of('finish')).toHaveLength(1), { timeout: 5000 });
    const span = Date.now() - t0;

    expect(x.channel.texts()).toEqual(['Ran 30 tools.']);
    expect(port.of('start')).toHaveLength(1);
    expect(port.calls[0]).toMatchObject({ type: 'start', text: 'running `cat f1.txt`' });
    const updates = port.of('update') as { text: string; at: number }[];
    expect(updates.length).toBeLessThanOrEqual(10);
    // The throttle held edits back, it did not drop them: a later call's line came through.
    expect(updates.length).toBeGreaterThanOrEqual(1);
    expect(updates.at(-1)?.text).toMatch(/^running `cat f([2-9]|[12]\d|30)\.txt`$/);
    // Never faster than the floor of one edit a second, whatever the channel allows.
    const times = [port.calls[0], ...updates].map((c) => c?.at ?? 0);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(990);
    expect(port.overlapped).toBe(false);
    const finish = port.of('finish')[0];
    expect(finish?.run).toEqual(port.calls[0]?.run);
    expect(finish).toMatchObject({
      end: { type: 'summary', text: expect.stringMatching(/^30 tools, \d+ s$/) },
    });
    // The last call is the finish: nothing edits the message after its summary.
    expect(port.calls.at(-1)?.type).toBe('finish');
    expect(span).toBeGreaterThan(1000);
  });

  it('deletes the message at the end when progressEnd says so', async () => {
    const port = new RecordingPort(1000);
    const x = setup(port, { mode: 'status', end: 'delete' });
    await x.send('tools 2 10');
    await x.channel.untilSent(1);
    await vi.waitFor(() => expect(port.of('finish')).toHaveLength(1), { timeout: 5000 });
    expect(port.of('finish')[0]).toMatchObject({ end: { type: 'delete' } });
    expect(x.channel.texts()).toEqual(['Ran 2 tools.']);
  });

  it('a cold run (the real claude tool capture, replayed) gets its status message too', async () => {
    dir = mkdtempSync(join(tmpdir(), 'aw-progress-cold-'));
    const raw = {
      agent: {
        kind: 'claude',
        mode: 'cold',
        cwd: dir,
        command: [process.execPath, REPLAY],
        env: { REPLAY_CAPTURE: CAPTURE },
      },
    };
    const log = createLogger({ level: 'silent' });
    const paths = {
      home: dir,
      configFile: join(dir, 'c.json5'),
      workspace: dir,
      agentState: join(dir, 'st'),
    } as never;
    const port = new RecordingPort(1000);
    h = harness({
      config: raw,
      resolver: agentResolver(
        configSchema.parse(raw),
        paths,
        { PATH: process.env.PATH ?? '/usr/bin:/bin' },
        log,
      ),
      progress: { port, settings: () => ({ mode: 'status', end: 'summary' }) },
    });
    await h.send('run it');
    await h.channel.untilSent(1);
    await vi.waitFor(() => expect(port.of('finish')).toHaveLength(1), { timeout: 5000 });
    expect(port.calls[0]).toMatchObject({ type: 'start' });
    expect(port.of('finish')[0]).toMatchObject({
      end: { type: 'summary', text: expect.stringMatching(/^1 tool, \d+ s$/) },
    });
    expect(h.channel.texts()[0]).toContain('Here is your chart.');
  });

  it.each([
    ['the channel section has it off', 1000, undefined],
    ['the channel cannot edit messages', undefined, { mode: 'status', end: 'summary' } as const],
  ])('nothing is sent when %s', async (_, interval, settings) => {
    const port = new RecordingPort(interval);
    const x = setup(port, settings);
    await x.send('tools 3 10');
    await x.channel.untilSent(1);
    await x.queue.whenIdle();
    expect(x.channel.texts()).toEqual(['Ran 3 tools.']);
    expect(port.calls).toEqual([]);
  });
});
