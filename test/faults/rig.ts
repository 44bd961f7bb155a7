// The real relay path for the fault suite: the console channel (fed and read through streams), the
// real queue, agent resolver, runner and media policy, real SQLite (behind a wrapper that can run out
// of disk), and the misbehaving fake claude as a real child process. Plus the four checks every
// fault must pass: the user heard something true, nothing was lost, no process is left, and the
// next message in the chat still runs.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { ConsoleChannel } from '../../src/channels/console/console.js';
import { agentResolver, mediaPolicy } from '../../src/queue/adapters.js';
import { Queue } from '../../src/queue/queue.js';
import { openDb } from '../../src/store/sqlite/db.js';
import { sqliteFile } from '../../src/store/sqlite/open.js';
import { QUEUE_MIGRATIONS } from '../../src/store/sqlite/queue-schema.js';
import { sqliteQueueStore } from '../../src/store/sqlite/queue-sqlite.js';
import { alive, type Home, makeHome, waitFor } from '../e2e/helpers.js';
import { type FullDisk, fullDisk } from './full-disk.js';

export const FAULT_CLI = join(process.cwd(), 'test/faults/fixtures/fault-cli.mjs');

export interface InboxState {
  text: string;
  status: string;
  note: string | null;
}

export interface OutboxState {
  key: string;
  status: string;
  text: string | null;
  error: string | null;
}

export interface Rig {
  home: Home;
  disk: FullDisk;
  queue: Queue;
  lines: Record<string, unknown>[];
  /** Everything the console printed as replies, one entry per sent item. */
  heard: string[];
  /** What the console said about input it could not hand over. */
  notices: string[];
  /** Types a line into the console and waits until the relay has nothing left to do. */
  say(text: string): Promise<void>;
  /** Types a line and waits only until the console handed it over (stored or refused). */
  type(text: string): Promise<void>;
  /** Resolves once the fake CLI logged `n` starts. */
  started(n: number): Promise<void>;
  inbox(): InboxState[];
  outbox(): OutboxState[];
  /** Every PID the fake CLI logged: its own (our children) and its grandchildren's. */
  pids(): { cli: number[]; grandchildren: number[] };
  close(): Promise<void>;
}

export async function startRig(agent: Record<string, unknown> = {}): Promise<Rig> {
  const home = makeHome({ agent: { command: [process.execPath, FAULT_CLI], ...agent } });
  const ctx = home.ctx();
  const real = openDb(sqliteFile(ctx.paths.home), QUEUE_MIGRATIONS);
  const disk = fullDisk(real);
  const input = new PassThrough();
  const heard: string[] = [];
  const notices: string[] = [];
  const sink = (into: string[]) =>
    new Writable({
      write(chunk, _e, cb) {
        into.push(String(chunk).replace(/\n$/, ''));
        cb();
      },
    });
  const channel = new ConsoleChannel({
    input,
    output: sink(heard),
    errors: sink(notices),
    onEnd: () => {},
  });
  const queue = new Queue({
    store: sqliteQueueStore(disk.db),
    channels: new Map([['console', channel]]),
    resolve: agentResolver(ctx.config, ctx.paths, ctx.env, ctx.log.child({ sub: 'agent' })),
    mediaPolicy: mediaPolicy(ctx.config, ctx.paths.stagedMedia),
    config: ctx.config,
    log: ctx.log.child({ sub: 'queue' }),
    defaultCwd: ctx.paths.workspace,
    delivery: { retryForMs: 60_000, backoffMs: () => 5, waitMs: 5 },
    storeRetryMs: 5,
  });
  await queue.start();
  await channel.start(queue.handleInbound);
  const count = () => (real.prepare('SELECT count(*) AS n FROM inbox').get() as { n: number }).n;
  const type = async (text: string) => {
    const before = { rows: count(), notices: notices.length };
    input.write(`${text}\n`);
    const handed = await waitFor(() => count() > before.rows || notices.length > before.notices, 10_000);
    if (!handed) throw new Error(`the console never handed over: ${text}`);
  };
  return {
    home,
    disk,
    queue,
    lines: ctx.lines,
    heard,
    notices,
    type,
    async say(text) {
      await type(text);
      await queue.whenIdle();
    },
    async started(n) {
      const ok = await waitFor(() => readEvents(home.fakeLog).filter((e) => e.ev === 'start').length >= n);
      if (!ok) throw new Error(`the fake CLI did not start ${n} times`);
    },
    inbox: () =>
      real.prepare('SELECT text, status, note FROM inbox ORDER BY id').all() as unknown as InboxState[],
    outbox: () =>
      (
        real.prepare('SELECT key, status, item, error FROM outbox ORDER BY id').all() as {
          key: string;
          status: string;
          item: string;
          error: string | null;
        }[]
      ).map((r) => ({
        key: r.key,
        status: r.status,
        text: (JSON.parse(r.item) as { text?: string }).text ?? null,
        error: r.error,
      })),
    pids: () => {
      const events = readEvents(home.fakeLog);
      return {
        cli: [...new Set(events.map((e) => e.pid))],
        grandchildren: events.flatMap((e) => (e.child ? [e.child] : [])),
      };
    },
    async close() {
      await channel.stop();
      await queue.shutdown(0);
      if (real.isOpen) real.close();
      home.cleanup();
    },
  };
}

function readEvents(file: string): { ev: string; pid: number; child?: number }[] {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  } catch {
    return [];
  }
}

/**
 * The processes a run left: a CLI not reaped (our own child: even a zombie of ours counts, since
 * only we can reap it) or a grandchild still running (an orphan's zombie belongs to PID 1). Polls
 * briefly: a process killed by the group KILL is reaped a moment after the run settled.
 */
export async function leftovers(pids: { cli: number[]; grandchildren: number[] }): Promise<number[]> {
  const left = () => [...pids.cli.filter(exists), ...pids.grandchildren.filter(alive)];
  await waitFor(() => left().length === 0, 3000);
  return left();
}

function exists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
