// `queue.whileBusy: 'steer'`: a message that arrives while the chat's agent works is stored first
// (the inbox, as always), then given to the running warm turn where the CLI can take it (codex
// turn/steer, pi steer). A steered row joins the running run: it is marked running and finished
// with that run's answer, so it is answered once, and if the relay dies it is re-run with the
// run's other rows. Where the turn cannot take it (claude, ACP: unsupported; no live turn: idle) it
// stays waiting and runs after, as with `followup`.
import { buildPrompt } from '../core/prompt.js';
import type { ChatKey } from '../core/types.js';
import type { Logger } from '../log.js';
import { maskId } from '../log.js';
import type { InboxRow } from '../store/contract/inbox.js';
import { scopeFor } from '../store/contract/sessions.js';
import type { QueueStore } from '../store/queue-ops.js';
import type { WarmPort } from './ports.js';
import type { ProcessOwner } from './process-owner.js';
import type { ActiveRun } from './run-slots.js';
import { toPrompt } from './run-types.js';

export interface SteerDeps {
  store: QueueStore;
  now: () => number;
  log: Logger;
  warm: WarmPort;
  timeZone: string | undefined;
  /** A row went back to waiting: the chat is marked ready, so it runs even if its run just ended. */
  requeued?: () => void;
  /** The chat leases when processes share the store: a steered row is claimed under the run's. */
  owner?: Pick<ProcessOwner, 'fence'>;
}

/**
 * Whether a waiting row may be given to the running turn: only a chat's own run (not a heartbeat's)
 * that nobody is stopping, and only a row whose attachments are already here (a link still to be
 * downloaded waits for its own run, which fetches it).
 */
export function steerable(
  row: Pick<InboxRow, 'kind' | 'remoteMedia'>,
  run: Pick<ActiveRun, 'kind' | 'reason'> | undefined,
): boolean {
  return (
    run !== undefined &&
    run.kind === 'user' &&
    run.reason === undefined &&
    row.kind === 'message' &&
    !(row.remoteMedia && row.remoteMedia.length > 0)
  );
}

/** Starts steering the chat's waiting rows into its running turn; a failure is only logged. */
export function steerLater(
  deps: SteerDeps & { scope: 'per-chat' | 'global' },
  chat: ChatKey,
  run: ActiveRun,
): void {
  // One global session: the lane's running turn may be another chat's, so nothing is steered.
  if (deps.scope === 'global') return;
  steerWaiting(deps, chat, scopeFor(chat, deps.scope), run).catch((err) =>
    deps.log.warn({ err, chat: maskId(chat) }, 'could not steer a message'),
  );
}

/** Gives the chat's waiting rows, in order, to the running turn until one cannot be taken. */
export async function steerWaiting(
  deps: SteerDeps,
  chat: ChatKey,
  lane: string,
  run: ActiveRun,
): Promise<void> {
  for (;;) {
    // Claimed before asking, so a second arrival meanwhile does not take the same row (the claim is
    // one transaction). A run that ends meanwhile finds its driver idle: the row goes back to wait,
    // and `requeued` makes sure the chat runs it.
    // Under the running turn's lease (this process holds it while the turn runs).
    const fence = deps.owner?.fence(chat);
    const claimed = await deps.store.claimNextRun(
      chat,
      1,
      deps.now(),
      (waiting) => ({ count: waiting[0] && steerable(waiting[0], run) ? 1 : 0 }),
      fence,
    );
    const row = claimed.ok ? claimed.value?.rows[0] : undefined;
    if (!row) return;
    run.ids.push(row.id);
    const text = buildPrompt([toPrompt(row)], deps.timeZone ? { timeZone: deps.timeZone } : {});
    const r = await deps.warm.steer(lane, text).catch(() => 'idle' as const);
    if (r === 'steered') {
      deps.log.info({ chat: maskId(chat), id: row.id }, 'message steered into the running turn');
      continue;
    }
    run.ids.splice(run.ids.indexOf(row.id), 1);
    await deps.store.requeueRun([row.id], deps.now(), undefined, fence);
    deps.requeued?.();
    deps.log.debug({ chat: maskId(chat), id: row.id, steer: r }, 'not steered: runs as a follow-up');
    return;
  }
}
