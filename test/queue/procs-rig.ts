// Processes on one SQLite store for the cross-process queue tests: each "process" is its own store
// connection, owner (lease) and queue, all in this test process (the store cannot tell). The hooks
// registered by useProcs stop them after each test; the store's folder goes with the test.
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import type { ChannelName } from '../../src/core/types.js';
import { type OwnershipTimings, ProcessOwner } from '../../src/queue/process-owner.js';
import { Queue, type QueueConfig } from '../../src/queue/queue.js';
import type { OwnershipStore } from '../../src/store/ownership.js';
import { openSqliteStore, type Store } from '../../src/store/sqlite/open.js';
import { tempDir } from '../helpers/tmp.js';
import { approveAll, FakeAgent, FakeChannel, memoryLog, ok } from './helpers.js';

export interface Proc {
  store: Store;
  owner: ProcessOwner;
  queue: Queue;
  agent: FakeAgent;
  channel: FakeChannel;
}

export interface Procs {
  /** A new store file in a folder of its own (inside a test: removed when it ends). */
  newFile(): string;
  /**
   * A process on `file`: opens the store, takes an owner with `timings`, starts a queue. `channel`:
   * the fake channel's name (default `console`); `sendLead`: the queue's option of that name.
   */
  proc(
    file: string,
    timings: OwnershipTimings,
    agent?: FakeAgent,
    opts?: {
      channel?: ChannelName;
      sendLead?: (channel: string) => string | undefined;
      /** Opens the process's store (default: SQLite on `file`; PostgreSQL tests open their own). */
      open?: () => Promise<Store>;
      /** Wraps the ownership port the owner is given (e.g. to count its calls). */
      port?: (p: OwnershipStore) => OwnershipStore;
    },
  ): Promise<Proc>;
}

export function useProcs(): Procs {
  const procs: Proc[] = [];
  afterEach(async () => {
    for (const p of procs.splice(0)) {
      p.queue.deliverer.stop();
      for (const c of p.agent.pending.slice()) c.finish(ok('late'));
      await p.queue.whenIdle().catch(() => undefined);
      await p.owner.stop().catch(() => undefined);
      await p.store.close();
    }
  });
  return {
    newFile: () => join(tempDir('aw-procs-'), 'agentwire.db'),
    async proc(file, timings, agent = new FakeAgent(), opts = {}) {
      const store = await (opts.open?.() ?? openSqliteStore(file));
      const { log } = memoryLog();
      const owner = await ProcessOwner.start(
        opts.port?.(store.ownership) ?? store.ownership,
        { role: 'test', fingerprint: 'f' },
        timings,
        log,
      );
      const channel = new FakeChannel(opts.channel ?? 'console');
      const queue = new Queue({
        store: store.queue,
        owner,
        channels: new Map([[channel.name, channel]]),
        ...(opts.sendLead && { sendLead: opts.sendLead }),
        resolve: agent.resolver(),
        mediaPolicy: approveAll,
        config: configSchema.parse({ queue: { whileBusy: 'followup' } }) as QueueConfig,
        log,
        defaultCwd: '/work/dir',
        delivery: { retryForMs: 10_000, backoffMs: () => 1, waitMs: 5 },
        timeZone: 'UTC',
        interactions: {
          store: store.interactions,
          approvers: undefined,
          approvalTimeoutMs: 60_000,
          owner: () => 'local',
        },
      });
      const p = { store, owner, queue, agent, channel };
      procs.push(p);
      await queue.start();
      return p;
    },
  };
}
