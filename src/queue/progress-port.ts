// One run's live status message as the queue sees the channel side (docs/sessions-and-queue.md,
// "Progress"): the queue hands it rendered, throttled text (queue/progress-feed.ts) and never knows
// how a channel sends, edits or deletes a message. The relay's port writes to the outbox
// (queue/progress-outbox.ts); NO_PROGRESS says no channel can edit, so nothing is ever started.
import type { ChatKey } from '../core/types.js';
import type { Fence } from '../store/ownership.js';

/**
 * What a run's status message becomes once the run ended (config `progressEnd`). `delete` carries the
 * summary as well, for a channel that cannot delete messages.
 */
export type ProgressEnd = { type: 'summary' | 'delete'; text: string };

/** One run's status message: `key` names the run, the same when a crash redoes it. */
export interface ProgressRun {
  chat: ChatKey;
  key: string;
  /** The run's lease of its chat, when processes share the store: its writes are fenced by it. */
  fence?: Fence;
}

export interface ProgressPort {
  /**
   * The least time between two edits of one message on the chat's channel, or undefined when the
   * channel cannot edit messages (SMS): a run there gets no status message at all.
   */
  editIntervalMs(chat: ChatKey): number | undefined;
  /** Sends the status message. Called once per run, before any update. */
  start(run: ProgressRun, text: string): Promise<void>;
  /** Edits it in place. Never called while the run's previous call is still under way. */
  update(run: ProgressRun, text: string): Promise<void>;
  /** The run ended: called once, after its last update settled, only for a started message. */
  finish(run: ProgressRun, end: ProgressEnd): Promise<void>;
}

/** No channel edits: nothing is started, nothing is sent (tests, and a queue built without one). */
export const NO_PROGRESS: ProgressPort = {
  editIntervalMs: () => undefined,
  start: async () => undefined,
  update: async () => undefined,
  finish: async () => undefined,
};
