// A user run's shared parts (run.ts runs it, run-finish.ts records its end): what a run is handed,
// its state, and the small helpers every step uses to write under the chat's lease.

import type { Channel } from '../channels/types.js';
import type { ProgressSettings } from '../config/schema-progress.js';
import type { ChunkRules } from '../core/chunk.js';
import type { PromptMessage } from '../core/prompt.js';
import { replyChunks } from '../core/reply.js';
import type { ChatKey, OutboundItem } from '../core/types.js';
import { maskId } from '../log.js';
import type { InboxRow } from '../store/contract/inbox.js';
import { type Fence, isFenceRefusal } from '../store/ownership.js';
import type { Written } from '../store/queue-ops.js';
import type { WhileBusy } from './busy-policy.js';
import type { RunContext } from './execute.js';
import type { MediaPolicy } from './ports.js';
import type { ProgressPort } from './progress-port.js';
import type { ActiveRun } from './run-slots.js';

export interface RunDeps {
  /** What every run shares (execute.ts). */
  context: RunContext;
  mediaPolicy: MediaPolicy;
  /** Sends the chat's outbox: kicked as soon as an answer is durable. */
  deliverer: { kick(chat: ChatKey): void };
  /** The chat's channel when it runs in this process (typing indicator, downloads). */
  channel: Channel | undefined;
  /** The channel's splitter rules (its plug-in's textRules). */
  limit: ChunkRules;
  whileBusy: WhileBusy;
  maxPendingPerChat: number;
  /** queue.maxPromptChars: the rows one run takes are cut to fit; one row alone longer is refused. */
  maxPromptChars: number;
  timeZone: string | undefined;
  /** First wait before writing again when the store refuses a write (a full disk). */
  storeRetryMs: number;
  /** The chat's live status message, when its channel section turns it on (docs/sessions-and-queue.md). */
  progress?: { port: ProgressPort; settings: ProgressSettings };
}

export const toPrompt = (r: InboxRow): PromptMessage => ({
  senderId: r.senderId,
  senderName: r.senderName,
  text: r.text,
  media: r.media,
  isGroup: r.isGroup,
  context: r.context,
  sentAt: r.sentAt,
});

/** State of one run, handed to its steps. */
export interface Run {
  deps: RunDeps;
  chat: ChatKey;
  active: ActiveRun;
  ids: number[];
  /** The chat's lease this run holds (undefined: the store is not shared). */
  fence?: Fence;
  /** The store refused a write because the lease moved: nothing more of this run is written. */
  moved?: boolean;
}

/**
 * The store refused the write because the chat's lease moved to another process (this one was
 * paused or cut off past its lease): that process answers the messages now, so this run writes and
 * sends nothing more. Passed on as written-with-nothing so the steps above simply end.
 */
export async function unlessMoved<T>(run: Run, write: Promise<Written<T>>): Promise<Written<T | undefined>> {
  const w = await write;
  // A fence refusal is the one `conflict` that is never retryable (store/ownership.ts); a
  // serialisation conflict is retryable and goes back to the caller to be tried again.
  if (w.ok || !isFenceRefusal(w)) return w;
  if (!run.moved)
    run.deps.context.log.warn(
      { chat: maskId(run.chat), ids: run.ids, epoch: run.fence?.epoch },
      'the lease of the chat moved to another process: this run writes nothing more',
    );
  run.moved = true;
  return { ok: true, value: undefined };
}

export const fenced = (run: Run) => (run.fence ? { fence: run.fence } : {});
export const replyKey = (run: Run) => `in:${run.ids[run.ids.length - 1]}`;

export const text = (t: string, limit: ChunkRules): OutboundItem[] =>
  replyChunks(t, limit).map((c) => ({ type: 'text', text: c }));

export const storeOpts = (run: Run, what: string) => ({
  what,
  log: run.deps.context.log,
  fields: { chat: maskId(run.chat), ids: run.ids },
  baseMs: run.deps.storeRetryMs,
  signal: run.active.controller.signal,
});
