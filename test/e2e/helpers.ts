// End-to-end plumbing: a temp AGENTWIRE_HOME with a config pointing agent.command at the fake
// claude, the fake's start/end log, and helpers to spawn the built binary.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context } from '../../src/cli/context.js';
import { resolvePaths } from '../../src/config/paths.js';
import { type Config, configSchema } from '../../src/config/schema.js';
import { memoryLog } from '../queue/helpers.js';

export { freePort } from '../support/free-port.js';

export const ROOT = process.cwd();
export const FAKE = join(ROOT, 'test/e2e/fixtures/fake-claude.mjs');
export const MAIN = join(ROOT, 'dist/cli/bin.js');
export const RELAY_SCRIPT = join(ROOT, 'test/e2e/fixtures/relay-test-channel.mjs');

export interface FakeEvent {
  ev: 'start' | 'end' | 'grandchild' | 'sleep' | 'tools';
  pid: number;
  /**
   * The relay that ran the fake CLI, its launcher passed over (fixtures/relay-pid.mjs); 1 once that
   * relay and its launcher died.
   */
  ppid?: number;
  /** The fake's own parent: the relay, or the relay's launcher (agents.launcher). */
  parent?: number;
  /** The fake's arguments (fake-claude logs them at start). */
  argv?: string[];
  t: number;
  prompt?: string;
  session?: string;
  resume?: boolean;
  child?: number;
}

export interface Home {
  dir: string;
  fakeLog: string;
  sessions: string;
  config: Config;
  configFile: string;
  env: NodeJS.ProcessEnv;
  ctx: () => Context & { lines: Record<string, unknown>[] };
  events: () => FakeEvent[];
  cleanup: () => void;
}

/** A state folder whose config runs the fake claude; `extra` is merged over the config. */

/**
 * The lines of a JSONL file a fake CLI may be appending to right now: a read can land in the middle
 * of a write (a regular file's read takes no lock against it), so a last line without its newline
 * is still being written and is left for the next read.
 */
export function completeLines(text: string): string[] {
  const lines = text.split('\n');
  lines.pop(); // after the last newline: '' or a line still being written
  return lines.filter(Boolean);
}

const toEvent = (line: string) => JSON.parse(line) as FakeEvent;

export function makeHome(extra: Record<string, unknown> = {}): Home {
  const dir = mkdtempSync(join(tmpdir(), 'aw-e2e-'));
  const fakeLog = join(dir, 'fake.jsonl');
  const sessions = join(dir, 'fake-sessions');
  const raw = {
    whatsapp: { enabled: false },
    ...extra,
    agent: {
      // The fake CLIs here are one-shot (they read the prompt to end of input): cold. Warm mode has
      // its own fakes (test/fixtures/fake-*.mjs) and tests (test/e2e/warm-relay.test.ts).
      mode: 'cold',
      command: [process.execPath, FAKE],
      timeoutSeconds: 60,
      env: { FAKE_LOG: fakeLog, FAKE_SESSIONS: sessions },
      ...((extra.agent as object) ?? {}),
    },
  };
  const configFile = join(dir, 'agentwire.json5');
  writeFileSync(configFile, JSON.stringify(raw, null, 2));
  const config = configSchema.parse(raw);
  const env = { ...process.env, AGENTWIRE_HOME: dir, AGENTWIRE_CONFIG: '', AGENTWIRE_LOG_LEVEL: 'warn' };
  return {
    dir,
    fakeLog,
    sessions,
    config,
    configFile,
    env,
    ctx: () => {
      const { log, lines } = memoryLog();
      return { paths: resolvePaths({ AGENTWIRE_HOME: dir }), config, log, env, lines };
    },
    events: () => (existsSync(fakeLog) ? completeLines(readFileSync(fakeLog, 'utf8')).map(toEvent) : []),
    cleanup: () => {
      // Stop any fake CLI (or its grandchild) a killed relay left behind: only PIDs the fake logged.
      for (const e of existsSync(fakeLog) ? completeLines(readFileSync(fakeLog, 'utf8')) : []) {
        const ev = toEvent(e);
        for (const pid of [ev.pid, ev.child]) if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Whether a process still runs. A zombie counts as gone: it is dead and only waits to be reaped by
 * its parent (an orphaned grandchild waits for PID 1, which in a container may take a while).
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return process.platform !== 'linux';
  }
}

/** SIGKILLs a process group the fake CLI logged (one a killed relay left behind); gone is fine. */
export function killOrphanGroup(pid: number): void {
  // -0 and -1 are this test's own group and every process it may signal: never a CLI's group.
  if (!(pid > 1)) throw new Error(`not a process group to kill: ${pid}`);
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: the group already ended.
  }
}

/**
 * The relays' log file lines of `home` (every process that ran on it, info included: a relay's
 * stderr off a terminal keeps warnings only), as `ms sub msg` from the first, for a failure to show
 * the timeline.
 */
export function logTail(home: Pick<Home, 'dir'>): string {
  const dir = join(home.dir, 'logs');
  if (!existsSync(dir)) return '(no log)';
  const lines = readdirSync(dir)
    .flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n'))
    .filter(Boolean)
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as { time: number; sub?: string; msg: string }];
      } catch {
        return [];
      }
    })
    .sort((a, b) => a.time - b.time);
  const t0 = lines[0]?.time ?? 0;
  return lines.map((l) => `${l.time - t0} ${l.sub ?? '-'} ${l.msg}`).join('\n');
}

/** Whether `p` exited within `ms`; its exit, or undefined. */
export async function exitWithin(p: Proc, ms: number): Promise<Awaited<Proc['exit']> | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((r) => {
    timer = setTimeout(() => r(undefined), ms);
  });
  try {
    return await Promise.race([p.exit, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Polls `check` every 10 ms until it returns true or `ms` passed; returns whether it did. The
 * default bound is for a machine loaded by other jobs, where starting the built relay and a fake
 * CLI alone can take over 15 s; a passing test never waits it out.
 */
export async function waitFor(check: () => boolean | Promise<boolean>, ms = 45_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return check();
}

/** The largest number of fake CLI runs alive at the same moment, from their start/end events. */
export function maxOverlap(events: readonly FakeEvent[]): number {
  const points = events
    .filter((e) => e.ev === 'start' || e.ev === 'end')
    .map((e) => ({ t: e.t, d: e.ev === 'start' ? 1 : -1 }))
    // At equal times, count the end first: a run that ended when another started did not overlap it.
    .sort((a, b) => a.t - b.t || a.d - b.d);
  let live = 0;
  let max = 0;
  for (const p of points) {
    live += p.d;
    max = Math.max(max, live);
  }
  return max;
}

export interface Proc {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function spawnNode(args: string[], env: NodeJS.ProcessEnv, input?: string): Proc {
  const child = spawn(process.execPath, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => {
    out += d;
  });
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    err += d;
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  if (input !== undefined) child.stdin?.end(input);
  return { child, stdout: () => out, stderr: () => err, exit };
}

/** A built relay's log lines (JSON), from the log files in its state folder `dir`. */
export function relayLogLines(dir: string): { msg?: string; level?: number | string }[] {
  const logs = join(dir, 'logs');
  if (!existsSync(logs)) return [];
  return readdirSync(logs)
    .flatMap((f) => readFileSync(join(logs, f), 'utf8').split('\n'))
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { msg?: string });
}
