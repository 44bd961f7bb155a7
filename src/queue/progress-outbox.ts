// The ProgressPort over the outbox (docs/sessions-and-queue.md, "Progress"): a run's status message is
// an outbox row like any reply, written under a key of the run's attempt, so a run redone after an
// interrupt (same attempt) edits the message it already has instead of posting a second one, and a
// crash leaves a row the next start can find and finish as interrupted (progress-recovery.ts). Each
// edit is an outbox edit of that row; `update` resolves once the edit was delivered (or given up), so
// the feed, which never calls again before then, keeps only the newest line while one is under way:
// a slow or failing channel gets one pending edit per run, never a backlog of stale ones. The end is
// one more keyed row: the summary as an edit, or (`progressEnd: 'delete'`, where the channel can) a
// deletion of the message, sent in the chat's order after the edits before it.
import { type ChatKey, type OutboxItem, parseChatKey } from '../core/types.js';
import type { QueueStore } from '../store/queue-ops.js';
import type { Clock } from './ports.js';
import type { ProgressPort, ProgressRun } from './progress-port.js';

/** Every status row's key starts so: delivery gives such rows few tries and skips stale edits. */
export const STATUS_PREFIX = 'status:';
export const isStatusKey = (key: string): boolean => key.startsWith(STATUS_PREFIX);
/** The status message of one attempt of a run: its last message's id and that message's try count. */
export const statusKey = (lastId: number, tries: number): string => `${STATUS_PREFIX}in:${lastId}:${tries}`;
/** What a status message left by a run that died says (progress-recovery.ts). */
export const INTERRUPTED_TEXT = 'interrupted (the relay stopped during this run)';
/** A status row's failed tries before it is given up: a stale line is not worth blocking the chat. */
export const STATUS_TRIES = 3;
/** The longest `update` waits for its edit to be delivered (another process may be the one sending). */
const SETTLE_MS = 30_000;

export interface DeliveryHooks {
  kick(chat: ChatKey): void;
  /** Resolves once the outbox row was sent or given up, or after `timeoutMs`. */
  settled(rowId: number, timeoutMs: number): Promise<void>;
}

export interface OutboxProgressDeps {
  store: Pick<QueueStore, 'enqueueReply' | 'outboxIdOf'>;
  /**
   * The least time between two edits of one message on the channel, from its plug-in's capabilities
   * (channels/registry.ts channelCapabilities); undefined when it cannot edit.
   */
  editInterval(channel: string): number | undefined;
  /** Whether the channel can delete its messages (capabilities `delete`): `progressEnd: 'delete'`. */
  canDelete(channel: string): boolean;
  now: Clock;
  settleMs?: number;
}

export type OutboxProgress = ProgressPort & {
  /** The queue's delivery, known once the queue exists (relay.ts). */
  bind(hooks: DeliveryHooks): void;
};

export function outboxProgress(d: OutboxProgressDeps): OutboxProgress {
  let hooks: DeliveryHooks | undefined;
  let seq = 0;
  /** The run's status message, as agentwire's id (`out:<row>`), once `start` wrote it. */
  const refs = new Map<string, string>();

  /** Writes the row; `wait`: resolves once it was delivered or given up (bounded). */
  const write = async (run: ProgressRun, key: string, item: OutboxItem, wait: boolean): Promise<number> => {
    const w = await d.store.enqueueReply(run.chat, key, [item], d.now(), run.fence);
    if (!w.ok) throw new Error(w.message);
    const id = await d.store.outboxIdOf(key);
    if (id === undefined) throw new Error('the status row is not in the outbox');
    // Waited for before the kick, so a quick delivery is not missed (delivery.ts remembers late ones too).
    const settled = wait ? hooks?.settled(id, d.settleMs ?? SETTLE_MS) : undefined;
    hooks?.kick(run.chat);
    await settled;
    return id;
  };

  const edit = async (run: ProgressRun, text: string): Promise<void> => {
    const ref = refs.get(run.key);
    if (!ref) return;
    // Every edit its own key: two edits with the same text (a summary after a redo) both go.
    seq += 1;
    await write(run, `${run.key}:e${d.now()}-${seq}`, { type: 'edit', ref, text }, true);
  };

  return {
    bind: (h) => {
      hooks = h;
    },
    editIntervalMs(chat) {
      const channel = parseChatKey(chat)?.channel;
      return channel ? d.editInterval(channel) : undefined;
    },
    async start(run, text) {
      // Written once per key: a redone attempt finds its message and edits it.
      const id = await write(run, run.key, { type: 'text', text }, false);
      refs.set(run.key, `out:${id}`);
    },
    update: edit,
    async finish(run, end) {
      try {
        const ref = refs.get(run.key);
        const channel = parseChatKey(run.chat)?.channel;
        // Where the channel cannot delete, the message ends on the summary (docs/configuration.md).
        if (ref && end.type === 'delete' && channel && d.canDelete(channel))
          await write(run, `${run.key}:delete`, { type: 'delete', ref }, true);
        else await edit(run, end.text);
      } finally {
        refs.delete(run.key);
      }
    },
  };
}
