// The busy policy (queue.whileBusy): what a message that arrives for a chat does, and which of the
// chat's waiting messages its next run takes. Pure; table-tested in test/queue/busy-policy.test.ts.
// The effects (abort a run, claim rows) are applied by queue/queue.ts and queue/run.ts.
import type { Config } from '../config/schema.js';
import { fitPrompt, type PromptMessage, type PromptOptions } from '../core/prompt.js';

export type WhileBusy = Config['queue']['whileBusy'];

/**
 * A message was stored for a chat. `start`: the chat waits for a slot; `wait`: a run is under way
 * and takes the message after it ends; `interrupt`: that run is aborted and the next takes its
 * messages with the new one; `steer`: the message is offered to the running warm turn (what the
 * turn cannot take waits, as `wait`).
 */
export type Arrival = 'start' | 'wait' | 'interrupt' | 'steer';

export function onArrival(policy: WhileBusy, busy: boolean): Arrival {
  if (!busy) return 'start';
  if (policy === 'interrupt') return 'interrupt';
  return policy === 'steer' ? 'steer' : 'wait';
}

/**
 * How many waiting messages one run may look at: one by one for followup (and for steer, whose
 * leftovers run as follow-ups), all (up to the cap) otherwise.
 */
export function runLimit(policy: WhileBusy, maxPendingPerChat: number): number {
  return policy === 'followup' || policy === 'steer' ? 1 : maxPendingPerChat;
}

/**
 * What the next run takes of the waiting messages (arrival order): as many as fit in
 * queue.maxPromptChars, the rest waiting for the run after; a first message longer than that alone
 * is taken by itself to be refused (`too_long`), never run.
 */
export type RunPlan = { type: 'run'; count: number } | { type: 'too_long'; count: 1; chars: number };

export function chooseRun(
  waiting: readonly PromptMessage[],
  maxPromptChars: number,
  opts: PromptOptions = {},
): RunPlan {
  const fit = fitPrompt(waiting, maxPromptChars, opts);
  return fit.type === 'fits'
    ? { type: 'run', count: fit.count }
    : { type: 'too_long', count: 1, chars: fit.chars };
}
