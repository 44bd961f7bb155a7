// The warm pool as the relay, `agentwire chat` and a direct heartbeat run it: the relay's watchdog
// (started with the first warm process, restarted if it dies) guards every process group, a
// process starts only once the webhooks in hand are answered, at a lower CPU priority, and a CLI
// that cannot start warm runs cold through the one-shot runner.
import { totalmem } from 'node:os';
import { getSpec } from '../agents/registry.js';
import { type WarmConfig, warmMemory } from '../config/schema-warm.js';
import type { Logger } from '../log.js';
import { lowered } from '../runner/nice.js';
import { reaperKeeper } from '../runner/reaper-keeper.js';
import { type RunDeps, runCommandReply } from '../runner/run-command-reply.js';
import { spawnTurn } from '../runner/spawn-turn.js';
import { createWarmPool, type WarmPool } from './pool.js';
import type { WarmMemory } from './warm-memory.js';

export type WarmSettings = Pick<WarmConfig, 'maxProcesses' | 'idleMinutes'> &
  Partial<
    Pick<
      WarmConfig,
      'maxMemoryMb' | 'maxProcessMemoryMb' | 'fairWaitSeconds' | 'sessionsPerProcess' | 'startSeconds'
    >
  >;

export function startWarmPool(
  settings: WarmSettings,
  log: Logger,
  total = totalmem(),
  remember?: WarmMemory,
  /** The relay's launcher: warm processes start from it, and the cold runs of a CLI that cannot start warm. */
  run: RunDeps = {},
): WarmPool {
  const keeper = reaperKeeper(({ pid }) =>
    log.warn({ reaper: pid }, 'the warm-process watchdog died: started again'),
  );
  const memory = warmMemory(settings, total);
  const pool = createWarmPool({
    maxProcesses: settings.maxProcesses,
    ...(settings.sessionsPerProcess !== undefined && { sessionsPerProcess: settings.sessionsPerProcess }),
    ...memory,
    fairWaitMs: (settings.fairWaitSeconds ?? 30) * 1000,
    idleMs: settings.idleMinutes * 60_000,
    ...(settings.startSeconds !== undefined && { startLimitMs: settings.startSeconds * 1000 }),
    log,
    ...(remember && { memory: remember }),
    // Each process starts at a lower CPU priority: its start-up CPU yields to the relay's acks.
    guard: () => lowered(keeper),
    startGate: spawnTurn,
    ...(run.launcher && { launcher: run.launcher }),
    cold: (kind, request) => {
      const spec = getSpec(kind);
      return spec.warmOnly ? undefined : runCommandReply(spec, request, run);
    },
  });
  // The relay's pool is the pool, with the watchdog ended after its processes.
  return {
    run: (sessionKey, kind, request) => pool.run(sessionKey, kind, request),
    steer: (sessionKey, text) => pool.steer(sessionKey, text),
    close: (sessionKey) => pool.close(sessionKey),
    list: (now) => pool.list(now),
    fallbacks: () => pool.fallbacks(),
    warmReset: (kind) => pool.warmReset(kind),
    live: (sessionKey) => pool.live(sessionKey),
    attach: (demand) => pool.attach(demand),
    demandChanged: () => pool.demandChanged(),
    starts: () => pool.starts(),
    status: (now) => pool.status(now),
    async shutdown(graceMs) {
      await pool.shutdown(graceMs);
      // Groups still listed (a close that outlived the grace) are killed by the watchdog as it ends.
      keeper.close();
    },
  };
}
