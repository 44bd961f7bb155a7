// A warm process belongs to the process holding its chat's lease: when another process takes the
// lease over (this one taken for dead while its turn ran), the turn is stopped and the warm process
// (the fake codex app-server, a real child process) is closed, not left running beside the new holder.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import type { ChatKey } from '../../src/core/types.js';
import { createWarmPool, type WarmPool } from '../../src/drivers/pool.js';
import { agentResolver } from '../../src/queue/adapters.js';
import { type OwnershipTimings, ProcessOwner } from '../../src/queue/process-owner.js';
import { Queue, type QueueConfig } from '../../src/queue/queue.js';
import { openSqliteStore, type Store } from '../../src/store/sqlite/open.js';
import { alive } from '../e2e/helpers.js';
import { tempDir } from '../helpers/tmp.js';
import { inbound } from '../store/helpers.js';
import { approveAll, FakeChannel, memoryLog } from './helpers.js';

const CODEX = join(import.meta.dirname, '..', 'fixtures', 'fake-codex-app-server.mjs');
const CHAT: ChatKey = 'console:local';
const LIVE: OwnershipTimings = { leaseMs: 2_000, renewMs: 50, pollMs: 20 };

const open: { stop(): Promise<void> }[] = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.stop();
});

async function until(check: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function warmProcess(): Promise<{ store: Store; owner: ProcessOwner; pool: WarmPool; queue: Queue }> {
  const dir = tempDir('aw-warm-lease-');
  const raw = {
    queue: { whileBusy: 'followup' },
    agent: {
      kind: 'codex',
      cwd: dir,
      timeoutSeconds: 60,
      command: [process.execPath, CODEX],
      env: { FAKE_CODEX_STATE: dir },
    },
  };
  const config = configSchema.parse(raw);
  const { log } = memoryLog();
  const store = await openSqliteStore(join(dir, 'agentwire.db'));
  const owner = await ProcessOwner.start(store.ownership, { role: 'test', fingerprint: 'f' }, LIVE, log);
  const pool = createWarmPool({ maxProcesses: 2, idleMs: 60_000, log, cold: () => undefined });
  const paths = { home: dir, configFile: join(dir, 'c.json5'), workspace: dir, agentState: join(dir, 'st') };
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
  const queue = new Queue({
    store: store.queue,
    owner,
    warm: pool,
    channels: new Map([['console', new FakeChannel()]]),
    resolve: agentResolver(config, paths as never, env, log, pool),
    mediaPolicy: approveAll,
    config: config as QueueConfig,
    log,
    defaultCwd: dir,
    delivery: { retryForMs: 10_000, backoffMs: () => 1, waitMs: 5 },
    timeZone: 'UTC',
  });
  await queue.start();
  open.push({
    async stop() {
      queue.deliverer.stop();
      await queue.shutdown(5_000);
      await pool.shutdown(5_000);
      await owner.stop().catch(() => undefined);
      await store.close();
    },
  });
  return { store, owner, pool, queue };
}

describe('a warm process and its chat lease', () => {
  it('closes when another process takes the lease over mid-turn', async () => {
    const a = await warmProcess();
    await a.queue.handleInbound(inbound({ messageId: 'm1', text: 'hang' }));
    await until(() => a.pool.list(Date.now())[0]?.busy === true);
    const pid = a.pool.list(Date.now())[0]?.pid ?? -1;
    expect(alive(pid)).toBe(true);
    // Another process took this one for dead and the chat's lease with it.
    await a.store.ownership.reap(Date.now(), (p) => p.id === a.owner.id);
    const taken = await a.store.ownership.acquireChat(CHAT, 'process-b', Date.now(), 60_000);
    expect(taken.type).toBe('granted');
    await until(() => a.pool.list(Date.now()).length === 0);
    await until(() => !alive(pid));
  });
});
