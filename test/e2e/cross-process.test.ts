// Two real processes on one store file (a child running the built queue, and this test's own queue):
// a /stop typed in this process reaches the run the child holds, and an answer typed here reaches the
// question the child's run asked (store/ownership.ts `chat_control`, `interaction_answered`).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import { ProcessOwner } from '../../src/queue/process-owner.js';
import { Queue, type QueueConfig } from '../../src/queue/queue.js';
import { openSqliteStore, type Store } from '../../src/store/sqlite/open.js';
import { approveAll, FakeAgent, FakeChannel, memoryLog } from '../queue/helpers.js';
import { inbound } from '../store/helpers.js';
import { MAIN, type Proc, ROOT, spawnNode, waitFor } from './helpers.js';

const RUNNER = join(ROOT, 'test/e2e/fixtures/queue-runner.mjs');

let dir: string | undefined;
let store: Store | undefined;
let owner: ProcessOwner | undefined;
let queue: Queue | undefined;
let child: Proc | undefined;

afterEach(async () => {
  if (child && child.child.exitCode === null && child.child.signalCode === null) {
    child.child.kill('SIGKILL');
    await child.exit;
  }
  queue?.deliverer.stop();
  await queue?.shutdown(0);
  await owner?.stop();
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  [dir, store, owner, queue, child] = [undefined, undefined, undefined, undefined, undefined];
});
beforeAll(() => {
  expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
});

const has = (p: Proc, line: string) => p.stdout().split('\n').includes(line);

/** The child runs a message of console:local (it holds the chat's lease); then this process starts beside it. */
async function childRunning(): Promise<{ b: Proc; here: Queue; id: number }> {
  dir = mkdtempSync(join(tmpdir(), 'aw-xproc-e2e-'));
  const file = join(dir, 'agentwire.db');
  store = await openSqliteStore(file);
  const sent = await store.queue.acceptInbound(inbound({ messageId: 'w1', text: 'work on it' }), {
    now: Date.now(),
    maxPending: 10,
  });
  const id = sent.ok && sent.value.type === 'stored' ? sent.value.id : -1;
  const b = spawnNode([RUNNER, file], process.env);
  child = b;
  expect(await waitFor(() => has(b, 'running'), 20_000), b.stderr()).toBe(true);
  const { log } = memoryLog();
  owner = await ProcessOwner.start(
    store.ownership,
    { role: 'test', fingerprint: 'f' },
    { leaseMs: 2000, renewMs: 100, pollMs: 20 },
    log,
  );
  queue = new Queue({
    store: store.queue,
    owner,
    channels: new Map([['console', new FakeChannel()]]),
    resolve: new FakeAgent().resolver(),
    mediaPolicy: approveAll,
    config: configSchema.parse({ queue: { whileBusy: 'followup' } }) as QueueConfig,
    log,
    defaultCwd: '/work/dir',
    timeZone: 'UTC',
    interactions: {
      store: store.interactions,
      approvers: undefined,
      approvalTimeoutMs: 60_000,
      owner: () => 'local',
    },
  });
  await queue.start();
  return { b, here: queue, id };
}

describe('two processes on one store file', () => {
  it('a /stop typed here stops the run the other process holds', { timeout: 60_000 }, async () => {
    const { b, here } = await childRunning();
    expect(await here.handleInbound(inbound({ messageId: 's1', text: '/stop' }))).toEqual({
      type: 'command',
    });
    expect(await waitFor(() => has(b, 'aborted'), 20_000), b.stdout()).toBe(true);
  });

  it("an answer typed here reaches the question the other process's run asked", {
    timeout: 60_000,
  }, async () => {
    const { b, here, id } = await childRunning();
    b.child.stdin?.write(`ask in:${id}\n`);
    // Polled with a bound until the child's question is shown (the store says so).
    const end = Date.now() + 20_000;
    const shown = async () =>
      (await store?.interactions.pending('console:local'))?.some((i) => i.shownAt !== undefined) ?? false;
    while (!(await shown())) {
      if (Date.now() > end) throw new Error(`the question was never shown: ${b.stderr()}`);
      await new Promise((r) => setImmediate(r));
    }
    expect(await here.handleInbound(inbound({ messageId: 'a1', text: 'the red one' }))).toEqual({
      type: 'command',
    });
    expect(await waitFor(() => has(b, 'answer the red one'), 20_000), b.stdout()).toBe(true);
  });
});
