// One heartbeat or schedule run in a chat's run slot: ask the agent in the session the job says, keep
// the session, record the run history. Its answer is the caller's (the job delivers it or not).
// Like run.ts it calls nothing of the queue: it takes the run slot at call time and gives it back.
import { randomUUID } from 'node:crypto';
import type { ChatKey, SystemRunOptions, SystemRunOutcome } from '../core/types.js';
import { maskId } from '../log.js';
import { runRecord } from '../store/contract/runs.js';
import { StoreError } from '../store/errors.js';
import { isFenceRefusal } from '../store/ownership.js';
import { execute, keptSession, type RunContext } from './execute.js';
import type { ActiveRun } from './run-slots.js';

export async function runSystem(
  context: RunContext,
  timeZone: string | undefined,
  chat: ChatKey,
  prompt: string,
  opts: SystemRunOptions,
): Promise<SystemRunOutcome> {
  const { runSlots, store, now, log } = context;
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
  // The run slot first, before anything is awaited (the queue's cap counts on it), then the lease.
  runSlots.begin(chat, run);
  try {
    const lease = context.owner ? await context.owner.take(chat) : undefined;
    // Another process holding the chat runs it: the job is busy there, like a chat in a run here.
    if (context.owner && !lease) return { type: 'busy' };
    // Given back once the run slot is: a run of this process waiting for the slot takes it on.
    if (lease) void run.done.then(() => context.owner?.drop(chat, lease.fence));
    const out = await execute(context, chat, prompt, {
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
          // The lease moved while the agent ran: the caller learns so as a value. Thrown, it left
          // an event begun with its drain ended, and the next look here ran the agent once more.
          if (!kept.ok && isFenceRefusal(kept)) {
            log.warn(
              { chat: maskId(chat), label: opts.label, epoch: lease?.fence.epoch },
              'the lease of the chat moved to another process: this system run writes nothing more',
            );
            return { type: 'moved' };
          }
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
    runSlots.end(chat, run);
    finished();
  }
}
