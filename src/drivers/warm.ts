// The warm pool as the relay, `agentwire chat` and a direct heartbeat run it: the relay's watchdog
// (started with the first warm process, restarted if it dies) guards every process group, and a
// CLI that cannot start warm runs cold through the one-shot runner.
import { getSpec } from '../agents/registry.js';
import type { Logger } from '../log.js';
import { reaperKeeper } from '../runner/reaper-keeper.js';
import { runCommandReply } from '../runner/run-command-reply.js';
import { createWarmPool, type WarmPool } from './pool.js';

export interface WarmSettings {
  maxProcesses: number;
  /** Sessions a codex or ACP process may hold (./hosts.ts); absent: 1. */
  sessionsPerProcess?: number;
  idleMinutes: number;
}

export interface RelayWarmPool extends WarmPool {
  /** The watchdog's pid while one runs. */
  reaperPid(): number | undefined;
  /** What /status and `agentwire status` show. */
  status(now: number): {
    maxProcesses: number;
    processes: ReturnType<WarmPool['list']>;
    fallbacks: ReturnType<WarmPool['fallbacks']>;
  };
}

export function startWarmPool(settings: WarmSettings, log: Logger): RelayWarmPool {
  const keeper = reaperKeeper(({ pid }) =>
    log.warn({ reaper: pid }, 'the warm-process watchdog died: started again'),
  );
  const pool = createWarmPool({
    maxProcesses: settings.maxProcesses,
    ...(settings.sessionsPerProcess !== undefined && { sessionsPerProcess: settings.sessionsPerProcess }),
    idleMs: settings.idleMinutes * 60_000,
    log,
    guard: () => keeper,
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
    reaperPid: () => keeper.pid(),
    status: (now) => ({
      maxProcesses: settings.maxProcesses,
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
