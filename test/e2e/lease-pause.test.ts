// The store level of fencing, with a real paused process: A (a child running the built store and
// owner) holds a chat's lease and runs its message; it is stopped with SIGSTOP past its lease, B
// takes the chat over under the next epoch and answers, and A, resumed, tries every run-side write it
// could still make. Each is refused and nothing of A reaches the store.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ChatKey } from '../../src/core/types.js';
import { ProcessOwner } from '../../src/queue/process-owner.js';
import { openSqliteStore, type Store } from '../../src/store/sqlite/open.js';
import { memoryLog } from '../queue/helpers.js';
import { inbound } from '../store/helpers.js';
import { MAIN, type Proc, ROOT, spawnNode, waitFor } from './helpers.js';

const HOLDER = join(ROOT, 'test/e2e/fixtures/lease-holder.mjs');
const CHAT: ChatKey = 'console:local';

let dir: string | undefined;
let store: Store | undefined;
let owner: ProcessOwner | undefined;
let child: Proc | undefined;

afterEach(async () => {
  if (child && child.child.exitCode === null && child.child.signalCode === null) {
    child.child.kill('SIGCONT');
    child.child.kill('SIGKILL');
    await child.exit;
  }
  await owner?.stop();
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  [dir, store, owner, child] = [undefined, undefined, undefined, undefined];
});
beforeAll(() => {
  expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
});

const lines = (p: Proc) => p.stdout().split('\n').filter(Boolean);

describe('a lease holder paused past its lease', () => {
  it('writes nothing its successor did not: every late run-side write is refused', {
    timeout: 60_000,
  }, async () => {
    dir = mkdtempSync(join(tmpdir(), 'aw-pause-'));
    const file = join(dir, 'agentwire.db');
    store = await openSqliteStore(file);
    const q = store.queue;
    const stored = await q.acceptInbound(inbound({ messageId: 'p1', text: 'work' }), {
      now: Date.now(),
      maxPending: 10,
    });
    const id = stored.ok && stored.value.type === 'stored' ? stored.value.id : -1;
    const a = spawnNode([HOLDER, file], process.env);
    child = a;
    expect(await waitFor(() => lines(a).length > 0, 20_000), a.stderr()).toBe(true);
    expect(JSON.parse(lines(a)[0] ?? '{}')).toEqual({ claimed: id, epoch: 1 });
    a.child.kill('SIGSTOP');

    // B: held while A's lease runs (A is alive, only stopped), granted once it ran out.
    owner = await ProcessOwner.start(
      store.ownership,
      { role: 'test', fingerprint: 'f' },
      { leaseMs: 1000, renewMs: 100, pollMs: 20 },
      memoryLog().log,
    );
    const b = owner;
    expect(await b.take(CHAT)).toBeUndefined();
    // Polled with a bound: A's lease runs out 1 s after its last renewal.
    let lease = await b.take(CHAT);
    for (const end = Date.now() + 20_000; !lease && Date.now() < end; lease = await b.take(CHAT))
      await new Promise((r) => setTimeout(r, 20));
    if (!lease) throw new Error('B never got the lease');
    const fence = lease.fence;
    expect(fence.epoch).toBe(2);
    expect(await q.message(id)).toMatchObject({ status: 'running', leaseEpoch: 1 });
    expect(
      await q.recover({ now: Date.now(), requeue: [id], fail: new Map(), notice: [], fences: [fence] }),
    ).toMatchObject({ ok: true });
    const claimed = await q.claimNextRun(CHAT, 1, Date.now(), () => ({ count: 1 }), fence);
    expect(claimed.ok && claimed.value?.rows.map((r) => r.id)).toEqual([id]);
    const sessionB = {
      scope: CHAT,
      agent: 'claude' as const,
      id: 'session-of-B',
      confirmed: true,
      touch: true,
      generation: 0,
    };
    await q.finishRun({
      chat: CHAT,
      ids: [id],
      now: Date.now(),
      status: 'done',
      reply: { key: `in:${id}`, items: [{ type: 'text', text: 'from B' }] },
      session: sessionB,
      fence,
    });
    const chunk = await q.nextUnsent(CHAT);
    if (!chunk) throw new Error('no reply from B');

    a.child.kill('SIGCONT');
    a.child.stdin?.write(`go ${chunk.id}\n`);
    expect(await waitFor(() => lines(a).length > 1, 20_000), a.stderr()).toBe(true);
    const results = JSON.parse(lines(a)[1] ?? '{}') as Record<string, unknown>;
    const refused = { ok: false, reason: 'conflict', retryable: false };
    expect(results.stillHolds).toBe(false);
    for (const w of ['finishRun', 'requeueRun', 'keepSession', 'toolSend', 'markChunkSent'])
      expect(results[w], w).toMatchObject(refused);
    // Nothing of A in the store: B's answer, B's session, B's row; the chunk still unsent.
    expect(await q.message(id)).toMatchObject({ status: 'done', owner: b.id, leaseEpoch: 2 });
    expect(await store.repliesFor(`in:${id}`)).toHaveLength(1);
    expect((await q.nextUnsent(CHAT))?.item).toEqual({ type: 'text', text: 'from B' });
    expect(await store.repliesFor('tool:A')).toEqual([]);
    expect((await q.session(CHAT, 'claude')).row).toMatchObject({ sessionId: 'session-of-B' });
    expect((await a.exit).code).toBe(0);
    await b.drop(CHAT);
  });
});
