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
import { runCommandReply } from '../runner/run-command-reply.js';
import { spawnTurn } from '../runner/spawn-turn.js';
import { createWarmPool, type WarmPool } from './pool.js';
import type { WarmMemory } from './warm-memory.js';

export type WarmSettings = Pick<WarmConfig, 'maxProcesses' | 'idleMinutes'> &
  Partial<Pick<WarmConfig, 'maxMemoryMb' | 'maxProcessMemoryMb' | 'fairWaitSeconds' | 'sessionsPerProcess'>>;

/** What /status and `agentwire status` show of the pool. */
export interface WarmPoolStatus {
  maxProcesses: number;
  /** The memory budget over all live processes, and one process's limit. */
  maxMemoryBytes: number;
  maxProcessBytes: number;
  /** Processes started since the relay started. */
  starts: number;
  processes: ReturnType<WarmPool['list']>;
  fallbacks: ReturnType<WarmPool['fallbacks']>;
}

export interface RelayWarmPool extends WarmPool {
  /** The watchdog's pid while one runs. */
  reaperPid(): number | undefined;
  status(now: number): WarmPoolStatus;
}

export function startWarmPool(
  settings: WarmSettings,
  log: Logger,
  total = totalmem(),
  remember?: WarmMemory,
): RelayWarmPool {
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
    log,
    ...(remember && { memory: remember }),
    // Each process starts at a lower CPU priority: its start-up CPU yields to the relay's acks.
    guard: () => lowered(keeper),
    startGate: spawnTurn,
    cold: (kind, request) => {
      const spec = getSpec(kind);
      return spec.warmOnly ? undefined : runCommandReply(spec, request);
    },
  });
  return {
    run: (lane, kind, request) => pool.run(lane, kind, request),
    steer: (lane, text) => pool.steer(lane, text),
    close: (lane) => pool.close(lane),
    list: (now) => pool.list(now),
    fallbacks: () => pool.fallbacks(),
    warmReset: (kind) => pool.warmReset(kind),
    live: (lane) => pool.live(lane),
    attach: (demand) => pool.attach(demand),
    demandChanged: () => pool.demandChanged(),
    starts: () => pool.starts(),
    reaperPid: () => keeper.pid(),
    status: (now) => ({
      maxProcesses: settings.maxProcesses,
      ...memory,
      starts: pool.starts(),
      processes: pool.list(now),
      fallbacks: pool.fallbacks(),
    }),
    async shutdown(graceMs) {
      await pool.shutdown(graceMs);
      // Groups still listed (a close that outlived the grace) are killed by the watchdog as it ends.
      keeper.close();
    },
  };
}
