// Test doubles for the heartbeat tests: a fake clock (timers fire only when the test advances
// time), a scripted SystemRunner (the core is the edge here), a real SQLite file in a temp folder,
// and a logger whose lines the test can read.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { AgentResult } from '../../src/agents/types.js';
import type { ChatKey, SystemRunner, SystemRunOutcome } from '../../src/core/types.js';
import type { Clock, Timer } from '../../src/heartbeat/clock.js';
import { createLogger, type Logger } from '../../src/log.js';
import { type Db, openDb } from '../../src/store/sqlite/db.js';
import { jobStateStore, readJobStates, scheduleMigration } from '../../src/store/sqlite/job-states.js';

export class FakeClock implements Clock {
  private timers: { at: number; fn: () => void; live: boolean; seq: number }[] = [];
  private seq = 0;
  constructor(public t: number) {}
  now(): number {
    return this.t;
  }
  setTimer(fn: () => void, ms: number): Timer {
    const timer = { at: this.t + Math.max(0, ms), fn, live: true, seq: this.seq++ };
    this.timers.push(timer);
    return {
      cancel: () => {
        timer.live = false;
      },
    };
  }
  pending(): number {
    return this.timers.filter((t) => t.live).length;
  }
  /** Moves time forward, firing due timers in order and letting promise chains run after each. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      this.timers = this.timers.filter((t) => t.live);
      const next = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!next) break;
      this.t = Math.max(this.t, next.at);
      next.live = false;
      next.fn();
      await settle();
    }
    this.t = end;
    await settle();
  }
}

/** Lets already-resolved promise chains (and sync SQLite writes behind them) run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
}

export interface RunCall {
  chat: ChatKey;
  prompt: string;
  opts: { allowNewSession: boolean; touchIdle: boolean; label: string };
  at: number;
}
export interface DeliverCall {
  chat: ChatKey;
  key: string;
  text: string;
  media: string[];
}

export const ok = (text: string, media: string[] = []): AgentResult => ({
  type: 'ok',
  text,
  progress: [],
  media,
  truncated: false,
  durationMs: 5,
});
export const agentError = (message: string): AgentResult => ({
  type: 'error',
  kind: 'exit',
  message,
  durationMs: 5,
});

/** What the core returns when /stop or shutdown killed the run. */
export const abortedRun = (): AgentResult => ({
  type: 'error',
  kind: 'aborted',
  message: 'The run was stopped.',
  durationMs: 5,
});

/**
 * A SystemRunner with the core's contract: a chat with a run under way is busy; without a session
 * and with allowNewSession false it answers no_session; deliver is once per key.
 */
export class FakeRunner implements SystemRunner {
  runs: RunCall[] = [];
  delivered: DeliverCall[] = [];
  sessions = new Set<ChatKey>();
  busy = new Set<ChatKey>();
  /** Sessions created by system runs. */
  created: ChatKey[] = [];
  /** Replies handed out in order; the last one repeats. */
  replies: (AgentResult | (() => Promise<AgentResult>))[] = [ok('HEARTBEAT_OK')];
  private next = 0;
  constructor(private readonly clock: FakeClock) {}

  async runIfIdle(
    chat: ChatKey,
    prompt: string,
    opts: { allowNewSession: boolean; touchIdle: boolean; label: string },
  ): Promise<SystemRunOutcome> {
    if (this.busy.has(chat)) return { type: 'busy' };
    if (!this.sessions.has(chat)) {
      if (!opts.allowNewSession) return { type: 'no_session' };
      this.sessions.add(chat);
      this.created.push(chat);
    }
    this.runs.push({ chat, prompt, opts, at: this.clock.now() });
    const r = this.replies[Math.min(this.next++, this.replies.length - 1)]!;
    this.busy.add(chat);
    try {
      return { type: 'ran', result: typeof r === 'function' ? await r() : r };
    } finally {
      this.busy.delete(chat);
    }
  }

  async deliver(chat: ChatKey, key: string, text: string, media: string[]): Promise<void> {
    if (this.delivered.some((d) => d.key === key)) return;
    this.delivered.push({ chat, key, text, media });
  }
}

export function tempDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'agentwire-hb-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function openStateDb(file: string): Db {
  return openDb(file, [scheduleMigration]);
}

/** A scheduler's store dependencies over `db`: the states stored now, and where to save. */
export function jobDeps(db: Db): {
  stored: ReturnType<typeof readJobStates>;
  states: ReturnType<typeof jobStateStore>;
} {
  return { stored: readJobStates(db), states: jobStateStore(db) };
}

/** One job's stored state (as the next start would read it). */
export function storedJob(db: Db, job: string) {
  return readJobStates(db).get(job);
}

export function captureLog(): { log: Logger; lines: () => Record<string, unknown>[] } {
  const out: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      out.push(String(chunk));
      cb();
    },
  });
  const log = createLogger({ level: 'debug', destination });
  return {
    log,
    lines: () =>
      out
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

/** A promise the test resolves by hand (a run that is still going). */
export function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
