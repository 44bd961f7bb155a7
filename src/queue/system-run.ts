// One heartbeat or schedule run in a chat's lane: ask the agent in the session the job says, keep
// the session, record the run history. Its answer is the caller's (the job delivers it or not).
// Like run.ts it calls nothing of the queue: it takes the lane at call time and gives it back.
import { randomUUID } from 'node:crypto';
import type { ChatKey, SystemRunOptions, SystemRunOutcome } from '../core/types.js';
import { runRecord } from '../store/contract/runs.js';
import { StoreError } from '../store/errors.js';
import { type ExecuteDeps, execute, keptSession } from './execute.js';
import type { ActiveRun } from './lanes.js';

export async function runSystem(
  exec: ExecuteDeps,
  timeZone: string | undefined,
  chat: ChatKey,
  prompt: string,
  opts: SystemRunOptions,
): Promise<SystemRunOutcome> {
  const { lanes, store, now, log } = exec;
  const controller = new AbortController();
  let finished!: () => void;
  const run: ActiveRun = {
    kind: 'system',
    label: opts.label,
    ids: [],
    startedAt: now(),
    controller,
    done: new Promise((r) => {
      finished = r;
    }),
  };
  // The lane first, before anything is awaited (the queue's cap counts on it), then the lease.
  lanes.begin(chat, run);
  try {
    const lease = exec.owner ? await exec.owner.take(chat) : undefined;
    // Another process holding the chat runs it: the job is busy there, like a chat in a run here.
    if (exec.owner && !lease) return { type: 'busy' };
    // Given back once the lane is: a run of this process waiting for the lane takes it on.
    if (lease) void run.done.then(() => exec.owner?.drop(chat));
    const out = await execute(exec, chat, prompt, {
      ...opts,
      runKey: opts.runKey ?? `sys:${randomUUID()}`,
      signal: controller.signal,
      ...(lease && { fence: lease.fence }),
    });
    switch (out.type) {
      case 'no_session':
        return { type: 'no_session' };
      case 'unavailable':
        return {
          type: 'ran',
          result: { type: 'error', kind: 'not_installed', message: out.error, durationMs: 0 },
        };
      case 'ran': {
        const session = keptSession(out, opts.touchIdle);
        if (session) {
          const kept = await store.keepSession(session, now(), lease?.fence);
          if (!kept.ok) throw new StoreError(kept);
        }
        const recorded = await store.recordRun(
          runRecord(chat, out.agent, opts.label, out.result, now(), timeZone),
        );
        if (!recorded.ok) log.warn({ error: recorded.message }, 'could not record the run history');
        return { type: 'ran', result: out.result };
      }
    }
  } finally {
    lanes.end(chat, run);
    finished();
  }
}
