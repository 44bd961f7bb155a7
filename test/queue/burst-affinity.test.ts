// A burst through the real queue (real SQLite) and the real warm pool, with a fake driver at the
// edge that counts process starts: 10 chats × 4 messages, 4 run slots, 4 processes. Each chat's
// process starts once (starts = distinct chats, not turns) because a process whose chat has
// messages waiting is not closed to make room, and a free slot takes a chat with a live process
// first. Deterministic: every turn is held until the test releases it, oldest first; no timing.
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentRequest, AgentResult, SessionRef } from '../../src/agents/types.js';
import { createWarmPool, type WarmPool } from '../../src/drivers/pool.js';
import type { DriverState, SessionDriver, TurnRequest } from '../../src/drivers/types.js';
import type { AgentResolver, ResolvedAgent } from '../../src/queue/ports.js';
import { type Harness, harness, memoryLog, ok } from './helpers.js';

const CHATS = 10;
const PER_CHAT = 4;

interface Held {
  chat: string;
  release: () => void;
}

/** A fake warm CLI: `open` is a process start, each turn waits for the test. */
function fakeCli() {
  const held: Held[] = [];
  let n = 0;
  const build = () => {
    let state: DriverState = { type: 'idle' };
    let sessionId = '';
    const driver: SessionDriver = {
      async open(session: SessionRef) {
        n++;
        sessionId = session.id ?? `s${n}`;
        state = { type: 'idle', sessionId };
        return { type: 'ok', sessionId };
      },
      turn(req: TurnRequest): Promise<AgentResult> {
        const chat = /chat (\d+)/.exec(req.prompt)?.[1] ?? '?';
        state = { type: 'busy', sessionId };
        return new Promise((resolve) => {
          held.push({
            chat,
            release: () => {
              state = { type: 'idle', sessionId };
              resolve(ok(`answer to ${req.prompt.length} chars`, { sessionId }));
            },
          });
        });
      },
      steer: () => ({ type: 'unsupported' }),
      cancel: async () => {},
      close: async () => {
        state = { type: 'closed' };
      },
      state: () => state,
      pid: () => undefined,
    };
    return { type: 'driver' as const, driver };
  };
  return { held, build, opened: () => n };
}

function warmResolver(pool: WarmPool): AgentResolver {
  const agent: ResolvedAgent = {
    kind: 'claude',
    choosesSessionId: 'relay-uuid',
    thinkingLevels: [],
    base: { command: ['claude'], cwd: '/work/dir', env: {}, timeoutMs: 60_000, stateDir: '/state' },
    mode: 'warm',
    run: (request: AgentRequest, ctx) => pool.run(ctx?.sessionKey ?? 'none', 'claude', request),
  };
  return () => ({ ok: true, agent });
}

let h: Harness | undefined;
let pool: WarmPool | undefined;
afterEach(async () => {
  await pool?.shutdown(1000);
  h?.cleanup();
  h = undefined;
  pool = undefined;
});

async function burst(whileBusy: 'followup' | 'collect') {
  const cli = fakeCli();
  const clock = { now: 1_700_000_000_000 };
  pool = createWarmPool({
    maxProcesses: 4,
    idleMs: 3_600_000,
    fairWaitMs: 60_000,
    log: memoryLog().log,
    cold: () => undefined,
    build: cli.build,
    now: () => clock.now,
  });
  h = harness({
    config: { queue: { maxConcurrentRuns: 4, whileBusy } },
    resolver: warmResolver(pool),
    warm: pool,
    clock,
  });
  // Every chat's messages arrive before any turn ends (the burst): chat by chat, in rounds.
  for (let m = 1; m <= PER_CHAT; m++)
    for (let c = 1; c <= CHATS; c++)
      expect(await h.send(`chat ${c} message ${m}`, { chatId: `c${c}`, senderId: `c${c}` })).toMatchObject({
        type: 'stored',
      });
  // Release the oldest held turn, one at a time, until every message has its answer.
  const turns: string[] = [];
  for (;;) {
    const answered = h.channel.sent.length;
    const pendingRows = (await h.queue.status()).waiting;
    const waiting = Object.values(pendingRows).reduce((a, b) => a + b, 0);
    if (waiting === 0 && cli.held.length === 0 && h.queue.runSlots.activeCount === 0) break;
    await until(() => cli.held.length > 0 || h?.channel.sent.length !== answered);
    const next = cli.held.shift();
    if (!next) continue;
    turns.push(next.chat);
    next.release();
  }
  await h.queue.whenIdle();
  return { starts: cli.opened(), turns };
}

/** Polls a condition on the event loop (no fixed sleep), failing after 5 s. */
async function until(check: () => boolean): Promise<void> {
  const end = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setImmediate(r));
  }
}

describe('a burst of chats over a small warm pool', () => {
  it('followup (a turn per message): 40 turns, one process start per chat', async () => {
    const { starts, turns } = await burst('followup');
    expect(turns).toHaveLength(CHATS * PER_CHAT);
    expect(new Set(turns).size).toBe(CHATS);
    expect(starts).toBe(CHATS);
    expect(h?.channel.sent.length).toBe(CHATS * PER_CHAT);
  });

  it('collect: one process start per chat', async () => {
    const { starts, turns } = await burst('collect');
    expect(new Set(turns).size).toBe(CHATS);
    expect(starts).toBe(CHATS);
  });
});
