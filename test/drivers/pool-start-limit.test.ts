// A warm start that never answers (an `agent.command` wrapper that does not pass the protocol
// through: it waits on its input, silent): the pool gives it START_LIMIT_MS, not the drivers' own
// minute, then kills it and answers the message cold, telling the chat what happened, what runs
// now and until when. Over a real child process that never speaks.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { AgentRequest, AgentResult } from '../../src/agents/types.js';
import { createWarmPool, type WarmPool } from '../../src/drivers/pool.js';
import { fallbackNotice, START_LIMIT_MS } from '../../src/drivers/pool-fallback.js';
import { createLogger } from '../../src/log.js';
import { waitFor } from '../helpers/launcher.js';

const dir = mkdtempSync(join(tmpdir(), 'aw-pool-limit-'));
const FIX = join(import.meta.dirname, '..', 'fixtures');
const pools: WarmPool[] = [];
const logLines: string[] = [];
const log = createLogger({ level: 'info', destination: { write: (l: string) => logLines.push(l) } as never });
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.shutdown(5000)));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Silent for good, as a wrapper waiting for its input to end; its pid in a file so the test can check it is gone.
const PID_FILE = join(dir, 'silent.pid');
const SCRIPT = join(dir, 'silent.mjs');
writeFileSync(
  SCRIPT,
  `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(PID_FILE)}, String(process.pid));\nsetInterval(() => {}, 1000);\n`,
);
const SILENT = [process.execPath, SCRIPT];

const req = (prompt: string): AgentRequest => ({
  prompt,
  session: { type: 'new' },
  command: SILENT,
  cwd: dir,
  stateDir: dir,
  env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  timeoutMs: 10_000,
});

const coldOk = (): AgentResult => ({
  type: 'ok',
  text: 'cold answer',
  progress: [],
  media: [],
  truncated: false,
  durationMs: 1,
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function pool(startLimitMs: number, lateStartMs: number) {
  const cold = vi.fn(async () => coldOk());
  const p = createWarmPool({ maxProcesses: 2, idleMs: 60_000, log, cold, startLimitMs, lateStartMs });
  pools.push(p);
  return { p, cold };
}

describe('warm pool: a start that never answers', () => {
  it('is given the start limit, not a minute, then killed; the message is answered cold and the chat told', async () => {
    expect(START_LIMIT_MS).toBeLessThanOrEqual(20_000);
    // The late start is waited for 10 s: long enough for the silent script to say its pid. At 1 s
    // a loaded machine once killed it (it starts at nice 10) before it had written the file.
    const { p, cold } = pool(1000, 10_000);
    const t0 = performance.now();
    const first = await p.run('chat:w', 'claude', req('hi'));
    // Answered at the limit (1 s), well under the drivers' own 60 s; the kill comes later.
    expect(performance.now() - t0).toBeLessThan(15_000);
    const reason = 'timeout: no answer to its start within 1 s';
    expect(p.fallbacks()).toEqual([{ kind: 'claude', reason }]);
    expect(first).toMatchObject({ type: 'ok', text: `${fallbackNotice('claude', reason)}\n\ncold answer` });
    expect(fallbackNotice('claude', reason)).toMatch(
      /^\(Claude Code could not start as a live process: it did not answer its start in time\. /,
    );
    expect(fallbackNotice('claude', reason)).toContain('also after a restart');
    expect(fallbackNotice('claude', reason)).toContain('agentwire agent warm-reset');
    // The silent process is killed with its session once it stayed silent past lateStartMs too.
    expect(await waitFor(() => existsSync(PID_FILE), 9000)).toBe(true);
    const pid = Number(readFileSync(PID_FILE, 'utf8'));
    expect(await waitFor(() => !alive(pid), 20_000)).toBe(true);
    // The next message runs cold at once, without the notice.
    const second = await p.run('chat:w', 'claude', req('again'));
    expect(second).toMatchObject({ type: 'ok', text: 'cold answer' });
    expect(cold).toHaveBeenCalledTimes(2);
    expect(logLines.filter((l) => l.includes('could not start warm')).length).toBe(1);
    // Never answered: still remembered.
    expect(p.fallbacks()).toEqual([{ kind: 'claude', reason }]);
  });

  it('one that answers after the limit was slow: that message runs cold, the next ones warm again', async () => {
    const gate = join(dir, 'start-gate');
    // The gate, not the limit, makes the first start late, so the limit can be generous: the second
    // start (no gate) must answer within it, and a loaded machine once took over 500 ms to start
    // the fake, which sent that message cold too.
    const { p, cold } = pool(4000, 30_000);
    const slow = (prompt: string): AgentRequest => ({
      ...req(prompt),
      command: [process.execPath, join(FIX, 'fake-claude-stream.mjs')],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', FAKE_CLAUDE_START_GATE: gate },
    });
    const first = await p.run('chat:s', 'claude', slow('hi'));
    expect(first).toMatchObject({ type: 'ok', text: expect.stringContaining('cold answer') });
    expect(p.fallbacks()).toHaveLength(1);
    // The start answers now: the failure is forgiven and the process closed.
    writeFileSync(gate, '');
    expect(await waitFor(() => p.fallbacks().length === 0, 15_000)).toBe(true);
    expect(await waitFor(() => p.list(Date.now()).length === 0, 15_000)).toBe(true);
    const second = await p.run('chat:s', 'claude', slow('again'));
    expect(second.type).toBe('ok');
    expect(second.type === 'ok' && second.text).not.toContain('cold answer');
    expect(cold).toHaveBeenCalledTimes(1);
    expect(logLines.filter((l) => l.includes('answered its warm start after the limit')).length).toBe(1);
  });
});
