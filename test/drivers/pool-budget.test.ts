// The warm pool's room decisions applied (pool-policy `place`, table-tested beside): the memory
// budget over sampled RSS, a process over its own limit recycled between turns, and a process whose
// chat has work waiting kept until the new chat's fair wait is over. A fake driver at the edge
// (no processes), the real pool.
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentRequest, AgentResult, SessionRef } from '../../src/agents/types.js';
import { createWarmPool, type PoolOptions, type WarmPool } from '../../src/drivers/pool.js';
import { SAMPLE_EVERY_MS } from '../../src/drivers/pool-policy.js';
import type { DriverState, SessionDriver } from '../../src/drivers/types.js';
import { createLogger } from '../../src/log.js';

const MB = 1024 * 1024;
const log = createLogger({ level: 'silent' });
const pools: WarmPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.shutdown(1000)));
});

/** Fake processes: pid per start, `closed` records which were closed. */
function fakes() {
  let next = 100;
  const closed: number[] = [];
  const build = () => {
    const pid = next++;
    let state: DriverState = { type: 'idle' };
    const driver: SessionDriver = {
      open: async (s: SessionRef) => ({ type: 'ok', sessionId: s.id ?? `s${pid}` }),
      turn: async (): Promise<AgentResult> => {
        state = { type: 'idle' };
        return { type: 'ok', text: `pid ${pid}`, progress: [], media: [], truncated: false, durationMs: 0 };
      },
      steer: () => ({ type: 'unsupported' }),
      cancel: async () => {},
      close: async () => {
        closed.push(pid);
        state = { type: 'closed' };
      },
      state: () => state,
      pid: () => (state.type === 'closed' ? undefined : pid),
    };
    return { type: 'driver' as const, driver };
  };
  return { build, closed };
}

function pool(over: Partial<PoolOptions>, f = fakes()): { p: WarmPool; closed: number[] } {
  const p = createWarmPool({
    maxProcesses: 8,
    idleMs: 3_600_000,
    log,
    cold: () => undefined,
    build: f.build,
    ...over,
  });
  pools.push(p);
  return { p, closed: f.closed };
}

const req = (prompt: string): AgentRequest => ({
  prompt,
  session: { type: 'resume', id: `sess-${prompt}` },
  command: ['claude'],
  cwd: '/tmp',
  env: {},
  timeoutMs: 10_000,
  stateDir: '/tmp',
});

/** Polls on the event loop (no fixed sleep), failing after 5 s. */
async function until(check: () => boolean): Promise<void> {
  const end = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 2));
  }
}

const sampled = (p: WarmPool, key: string) => p.list(Date.now()).some((x) => x.sessionKey === key);

describe('warm pool: memory', () => {
  it('a new process that would pass the budget closes the least recently used idle one', async () => {
    const { p, closed } = pool({ maxMemoryBytes: 700 * MB, rss: () => 300 * MB });
    await p.run('a', 'claude', req('a'));
    await p.run('b', 'claude', req('b'));
    expect(p.list(Date.now()).map((x) => x.sessionKey)).toEqual(['a', 'b']);
    // 600 MB live, 300 MB more expected (claude's own measurement now): over 700.
    await p.run('c', 'claude', req('c'));
    expect(closed).toEqual([100]);
    expect(p.live('a')).toBe(false);
    expect(p.live('c')).toBe(true);
    expect(p.starts()).toBe(3);
  });

  it('within the budget, the count decides alone', async () => {
    const { p, closed } = pool({ maxMemoryBytes: 4000 * MB, rss: () => 300 * MB });
    for (const l of ['a', 'b', 'c']) await p.run(l, 'claude', req(l));
    expect(closed).toEqual([]);
  });

  it('a process over its own limit is closed after its turn; the next turn resumes in a new one', async () => {
    const { p, closed } = pool({
      maxProcessBytes: 200 * MB,
      rss: (pid) => (pid === 100 ? 300 * MB : 50 * MB),
    });
    expect(await p.run('a', 'claude', req('a'))).toMatchObject({ text: 'pid 100' });
    await until(() => closed.includes(100));
    expect(p.live('a')).toBe(false);
    expect(await p.run('a', 'claude', req('a'))).toMatchObject({ text: 'pid 101' });
    expect(closed).toEqual([100]);
    expect(p.starts()).toBe(2);
  });
});

/** Lets the pool's between-turn sample (a setImmediate queued when the turn ended) run first. */
const sampledAfterTurn = () => new Promise((r) => setImmediate(r));

describe('warm pool: memory reads', () => {
  it('turns within SAMPLE_EVERY_MS of a read reuse it; a later turn reads again and recycles a process grown over its limit', async () => {
    let now = 1000;
    let size = 50 * MB;
    const reads: number[] = [];
    const { p, closed } = pool({
      maxProcessBytes: 200 * MB,
      now: () => now,
      rss: (pid) => {
        reads.push(pid);
        return size;
      },
    });
    await p.run('a', 'claude', req('a'));
    await sampledAfterTurn();
    // The start and the first turn came within the interval: one read, not two.
    expect(reads).toEqual([100]);
    size = 300 * MB;
    for (let i = 0; i < 3; i++) {
      now += SAMPLE_EVERY_MS / 4;
      await p.run('a', 'claude', req('a'));
      await sampledAfterTurn();
    }
    expect(reads).toEqual([100]);
    expect(closed).toEqual([]);
    now += SAMPLE_EVERY_MS / 4;
    expect(await p.run('a', 'claude', req('a'))).toMatchObject({ text: 'pid 100' });
    await until(() => closed.includes(100));
    expect(reads).toEqual([100, 100]);
    // The chat's new process is read at once, within the interval of the old one's reading: the
    // old process's size is never taken for it (it would be recycled again at once).
    size = 50 * MB;
    expect(await p.run('a', 'claude', req('a'))).toMatchObject({ text: 'pid 101' });
    await sampledAfterTurn();
    expect(reads).toEqual([100, 100, 101]);
    expect(await p.run('a', 'claude', req('a'))).toMatchObject({ text: 'pid 101' });
    expect(closed).toEqual([100]);
  });
});

describe('warm pool: a memory read that failed', () => {
  it('is not kept: the next turn, within the interval, reads again', async () => {
    const now = 1000;
    const answers: (number | undefined)[] = [undefined, 80 * MB];
    const reads: number[] = [];
    const { p } = pool({
      now: () => now,
      rss: (pid) => {
        reads.push(pid);
        return answers.shift();
      },
    });
    // The start's read fails; the first turn's, within the same millisecond, reads again.
    await p.run('a', 'claude', req('a'));
    await sampledAfterTurn();
    expect(reads).toEqual([100, 100]);
    // That one succeeded: the next turn in the interval uses it.
    await p.run('a', 'claude', req('a'));
    await sampledAfterTurn();
    expect(reads).toEqual([100, 100]);
  });
});

describe('warm pool: memory reads of a shared process', () => {
  it('two chats on one process: read once for both within the interval, not at each turn', async () => {
    let now = 1000;
    const reads: number[] = [];
    const f = fakes();
    // Both sessions on one process (pid 200), as codex's app-server serves them.
    const build = () => {
      const b = f.build();
      return { ...b, driver: { ...b.driver, pid: () => 200 }, host: 'shared' };
    };
    const { p } = pool(
      {
        now: () => now,
        rss: (pid) => {
          reads.push(pid);
          return 100 * MB;
        },
      },
      { ...f, build },
    );
    for (let i = 0; i < 3; i++) {
      now += SAMPLE_EVERY_MS / 8;
      await p.run('a', 'codex', req('a'));
      await p.run('b', 'codex', req('b'));
      await sampledAfterTurn();
    }
    expect(reads).toEqual([200]);
    now += SAMPLE_EVERY_MS;
    await p.run('b', 'codex', req('b'));
    await sampledAfterTurn();
    expect(reads).toEqual([200, 200]);
  });
});

describe('warm pool: a process whose chat has work waiting', () => {
  it('is not closed to make room: the new chat waits, and gets a process once that chat is done', async () => {
    const wanted = new Set(['a']);
    const { p, closed } = pool({ maxProcesses: 1, fairWaitMs: 60_000 });
    p.attach({ wanted: (l) => wanted.has(l), since: () => undefined });
    await p.run('a', 'claude', req('a'));
    let done = false;
    const b = p.run('b', 'claude', req('b')).then((r) => {
      done = true;
      return r;
    });
    // 'a' is idle but wanted: b waits. Another turn of 'a' runs meanwhile in its process.
    expect(await p.run('a', 'claude', req('a'))).toMatchObject({ text: 'pid 100' });
    expect(done).toBe(false);
    expect(closed).toEqual([]);
    wanted.clear();
    p.demandChanged();
    expect(await b).toMatchObject({ text: 'pid 101' });
    expect(closed).toEqual([100]);
    expect(sampled(p, 'b')).toBe(true);
  });

  it('after the fair wait, the process served since the new chat began waiting is recycled', async () => {
    let now = 900;
    const { p, closed } = pool({ maxProcesses: 2, fairWaitMs: 30, now: () => now });
    p.attach({ wanted: (l) => l !== 'c', since: (l) => (l === 'c' ? 1000 : undefined) });
    await p.run('a', 'claude', req('a'));
    await p.run('b', 'claude', req('b'));
    now = 1000;
    let done = false;
    const c = p.run('c', 'claude', req('c')).then((r) => {
      done = true;
      return r;
    });
    now = 1010;
    // b has a turn after c began waiting (a's last was before): b is the one to go.
    await p.run('b', 'claude', req('b'));
    expect(done).toBe(false);
    now = 1040;
    // The fair wait's timer runs on the real clock: the pool looks again when it fires.
    expect(await c).toMatchObject({ text: 'pid 102' });
    expect(closed).toEqual([101]);
    expect(p.live('a')).toBe(true);
  });
});

describe('warm pool: acks first', () => {
  it('a process starts only once the start gate (the webhooks in hand answered) lets it', async () => {
    const f = fakes();
    let opened = 0;
    const build = () => {
      const b = f.build();
      const open = b.driver.open.bind(b.driver);
      b.driver.open = (s) => {
        opened++;
        return open(s);
      };
      return b;
    };
    let letGo!: () => void;
    const gate = new Promise<void>((r) => {
      letGo = r;
    });
    const { p } = pool({ build, startGate: () => gate });
    const turn = p.run('a', 'claude', req('a'));
    await until(() => p.live('a'));
    expect(opened).toBe(0);
    letGo();
    expect(await turn).toMatchObject({ text: 'pid 100' });
    expect(opened).toBe(1);
    // A turn in the live process does not wait at the gate again.
    expect(await p.run('a', 'claude', req('a'))).toMatchObject({ text: 'pid 100' });
    expect(opened).toBe(1);
  });
});
