// The `heartbeat` method of the relay's control socket: `agentwire heartbeat` asks the running relay
// to fire one heartbeat now, through the relay's own run slots and outbox. Params are checked here
// because they arrive over the socket.
import { z } from 'zod';
import type { Queued } from '../channels/send-state.js';
import type { ChatKey, SystemRunner } from '../core/types.js';
import { type FireOptions, HeartbeatJob, type HeartbeatOutcome } from './heartbeat-job.js';
import type { JobDeps } from './jobs.js';
import type { Scheduler } from './scheduler.js';
import { DEFAULT_HEARTBEAT_MINUTES, type HeartbeatConfig, resolveHeartbeat } from './settings.js';

export const HEARTBEAT_METHOD = 'heartbeat';

const paramsSchema = z
  .object({
    to: z.string().min(1).optional(),
    dryRun: z.boolean().optional(),
  })
  .strict();

export type HeartbeatParams = z.infer<typeof paramsSchema>;
/** `queued` (through the relay): the reply is in the outbox, but its channel cannot deliver it now. */
export type HeartbeatMethodResult =
  | (HeartbeatOutcome & { queued?: Queued })
  | { type: 'invalid'; message: string };

/** The handler the relay registers as method `heartbeat`: `(params) → HeartbeatMethodResult`. */
export function heartbeatMethod(
  scheduler: Pick<Scheduler, 'fireHeartbeat'>,
): (params: unknown) => Promise<HeartbeatMethodResult> {
  return async (raw) => {
    const p = paramsSchema.safeParse(raw ?? {});
    if (!p.success) return { type: 'invalid', message: p.error.issues.map((i) => i.message).join('; ') };
    return scheduler.fireHeartbeat(p.data);
  };
}

/**
 * One heartbeat in this process, for `agentwire heartbeat` when no relay runs: the manual job only,
 * so the ticking heartbeat's and the schedules' stored state are left alone.
 */
export function fireHeartbeatOnce(
  deps: Omit<JobDeps, 'runner'> & { runner: SystemRunner },
  config: HeartbeatConfig,
  defaultTarget: () => ChatKey | undefined,
  o: FireOptions,
): Promise<HeartbeatOutcome> | HeartbeatOutcome {
  const s = resolveHeartbeat({ ...config, everyMinutes: config.everyMinutes || DEFAULT_HEARTBEAT_MINUTES });
  if (s.type !== 'on')
    return { type: 'refused', reason: 'invalid', message: s.type === 'invalid' ? s.error : 'off' };
  return new HeartbeatJob(deps, s, defaultTarget, true).fireNow(o);
}
