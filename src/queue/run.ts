// One run of a chat's run slot for user messages, from claim to reply: claim the waiting rows the busy
// policy allows (they become `running`), fetch their attachments, ask the agent, compose the answer,
// and finish: the answer, the rows' final state and the session in one store operation (so after a
// crash either the run is redone or its reply is in the outbox, never both or neither), then the
// run history. It calls nothing of the queue: the run slot is taken here and given back when the
// returned Promise settles; what runs next is the queue's business.

import type { Channel } from '../channels/types.js';
import type { ProgressSettings } from '../config/schema-progress.js';
import type { ChunkRules } from '../core/chunk.js';
import { cutText } from '../core/line.js';
import { buildPrompt, type PromptMessage } from '../core/prompt.js';
import { NOTICE, replyChunks, tooLongNotice } from '../core/reply.js';
import { leastRole, type Role } from '../core/roles.js';
import type { ChatKey, OutboundItem } from '../core/types.js';
import { parseChatKey } from '../core/types.js';
import { maskId } from '../log.js';
import { spawnTurn } from '../runner/spawn-turn.js';
import type { InboxRow } from '../store/contract/inbox.js';
import { runRecord } from '../store/contract/runs.js';
import type { Fence } from '../store/ownership.js';
import type { Written } from '../store/queue-ops.js';
import { chooseRun, runLimit, type WhileBusy } from './busy-policy.js';
import { composeRunReply } from './compose.js';
import { type ExecuteOutcome, execute, keptSession, type RunContext } from './execute.js';
import { fetchRemoteMedia } from './fetch-media.js';
import { persist } from './persist.js';
import type { MediaPolicy } from './ports.js';
import { type ProgressFeed, statusFeed } from './progress-feed.js';
import { statusKey } from './progress-outbox.js';
import type { ProgressPort } from './progress-port.js';
import { recoverChat } from './recovery.js';
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

function typing(channel: Channel | undefined, chatId: string, on: boolean): void {
  // Best effort: a typing indicator that fails must never fail the run.
  channel?.typing?.(chatId, on).catch(() => undefined);
}

/** State of one run, handed to its steps. */
interface Run {
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
 * Runs the chat's next batch, if it has one. The run slot is taken before anything is awaited, so a
 * caller that starts runs while a slot is free never starts more than the cap.
 */
export async function runChat(deps: RunDeps, chat: ChatKey): Promise<void> {
  const { runSlots, now, log, store } = deps.context;
  let finished!: () => void;
  const active: ActiveRun = {
    kind: 'user',
    label: 'message',
    ids: [],
    startedAt: now(),
    controller: new AbortController(),
    done: new Promise((r) => {
      finished = r;
    }),
  };
  runSlots.begin(chat, active);
  const run: Run = { deps, chat, active, ids: active.ids };
  const chatId = parseChatKey(chat)?.chatId ?? '';
  let typed = false;
  let leased = false;
  let feed: ProgressFeed | undefined;
  try {
    // Processes share the store: the chat's lease first, and every write of the run carries it.
    const owner = deps.context.owner;
    if (owner) {
      const lease = await owner.take(chat);
      // Another process runs the chat: it is told a message waits, and runs it after its own.
      if (!lease) {
        await owner.notify('chat_ready', chat);
        return;
      }
      leased = true;
      run.fence = lease.fence;
      if (lease.fresh && (await recoverChat({ store, now: now(), ...closer(deps, chat) }, chat, lease.fence)))
        log.warn({ chat: maskId(chat) }, 'took over messages whose run never finished');
    }
    const claimed = await persist(
      () =>
        unlessMoved(
          run,
          store.claimNextRun(
            chat,
            runLimit(deps.whileBusy, deps.maxPendingPerChat),
            now(),
            (waiting) => chooseRun(waiting.map(toPrompt), deps.maxPromptChars, promptOpts(deps)),
            run.fence,
          ),
        ),
      storeOpts(run, 'start a run'),
    );
    // Nothing waiting (or stopped while the store refused the claim: the rows still wait).
    if (!claimed.ok || !claimed.value) return;
    const { rows, plan } = claimed.value;
    active.ids.push(...rows.map((r) => r.id));
    active.senders = rows.map((r) => r.senderId);
    if (rows.length > 1) active.label = `${rows.length} messages`;
    runSlots.clearDropNotice(chat);
    typing(deps.channel, chatId, true);
    typed = true;
    if (plan.type === 'too_long') {
      // Refused before its attachments are downloaded: nothing of it will run.
      await refuseTooLong(run, plan.chars);
      return;
    }
    // Attachments stored as links are downloaded now, and written back before the agent runs.
    const ready = await fetchRemoteMedia(
      { store, channel: deps.channel, persist: storeOpts(run, '') },
      chat,
      rows,
    );
    // Stopped while the store refused the download's record: the rows stay for the next start.
    if (!ready) return;
    // Built from the rows as downloaded; the fit counted them with their links, which is near
    // enough for a cap meant to stop 10 MB prompts, not to count characters exactly.
    const prompt = buildPrompt(ready.map(toPrompt), promptOpts(deps));
    const onProgress = (await store.chatSettings(chat)).verbose ? progressSink(run) : undefined;
    // Real time, not the queue's clock: the throttle paces real edits on real timers.
    // Keyed by the attempt: a run requeued (not a crash) keeps its try count and its status message.
    const last = rows[rows.length - 1];
    const statusRun = { chat, key: statusKey(last?.id ?? 0, last?.tries ?? 0), ...fenced(run) };
    feed = statusFeed(deps.progress, statusRun, { now: Date.now, log });
    await spawnTurn();
    // Told to stop before the agent started (an interrupt or /stop while claiming or downloading).
    const out: ExecuteOutcome | undefined = active.controller.signal.aborted
      ? undefined
      : await execute(deps.context, chat, prompt, {
          allowNewSession: true,
          signal: active.controller.signal,
          // The tools' outbox keys: the same when a crash redoes the run.
          runKey: `in:${run.ids[run.ids.length - 1]}`,
          ...fenced(run),
          ...(onProgress ? { onProgress } : {}),
          ...(feed && { onEvent: feed.listener }),
          ...runRole(deps.context, chat, rows),
        });
    // The status message gets its summary while the answer is stored; neither waits for the other.
    void feed?.finish();
    await finish(run, out);
  } catch (err) {
    log.error({ err, chat: maskId(chat), ids: run.ids }, 'run failed inside the relay');
    if (run.ids.length > 0 && !run.moved) await failSafely(run);
  } finally {
    void feed?.finish();
    if (typed) typing(deps.channel, chatId, false);
    runSlots.end(chat, active);
    finished();
    if (leased) await deps.context.owner?.drop(chat);
  }
}

/** The least trusted sender of the run's messages decides its profile (core/roles.ts). */
function runRole(
  context: RunContext,
  chat: ChatKey,
  rows: readonly { senderId: string; isGroup: boolean }[],
): { role?: Role } {
  const channel = parseChatKey(chat)?.channel;
  if (!context.roles || !channel) return {};
  const roles = context.roles;
  return { role: leastRole(rows.map((r) => roles({ channel, senderId: r.senderId, isGroup: r.isGroup }))) };
}

/**
 * The store refused the write because the chat's lease moved to another process (this one was
 * paused or cut off past its lease): that process answers the messages now, so this run writes and
 * sends nothing more. Passed on as written-with-nothing so the steps above simply end.
 */
async function unlessMoved<T>(run: Run, write: Promise<Written<T>>): Promise<Written<T | undefined>> {
  const w = await write;
  // A fence refusal is the one `conflict` that is never retryable (store/ownership.ts); a
  // serialisation conflict is retryable and goes back to the caller to be tried again.
  if (w.ok || w.reason !== 'conflict' || w.retryable) return w;
  if (!run.moved)
    run.deps.context.log.warn(
      { chat: maskId(run.chat), ids: run.ids, epoch: run.fence?.epoch },
      'the lease of the chat moved to another process: this run writes nothing more',
    );
  run.moved = true;
  return { ok: true, value: undefined };
}

/**
 * What the previous holder's runs still waited on is closed when this run takes the chat over. Looked
 * for in the chat's own questions first (a read): closing scans every chat's in a write transaction,
 * which each run of a chat that went idle would otherwise pay for nothing.
 */
const closer = (deps: RunDeps, chat: ChatKey) => {
  const i = deps.context.interactions;
  if (!i) return {};
  return {
    closeLeftOver: async (owns: (c: ChatKey) => boolean) => {
      if ((await i.store.pending(chat)).length > 0) await i.start(owns);
    },
  };
};
const fenced = (run: Run) => (run.fence ? { fence: run.fence } : {});

const promptOpts = (deps: RunDeps) => (deps.timeZone ? { timeZone: deps.timeZone } : {});
const replyKey = (run: Run) => `in:${run.ids[run.ids.length - 1]}`;

/** A message longer than queue.maxPromptChars: never run, the sender told why (D26). */
async function refuseTooLong(run: Run, chars: number): Promise<void> {
  const { deps, chat, ids } = run;
  const { store, now, log } = deps.context;
  const items = text(tooLongNotice(chars, deps.maxPromptChars), deps.limit);
  const recorded = await persist(
    () =>
      unlessMoved(
        run,
        store.finishRun({
          chat,
          ids,
          now: now(),
          status: 'failed',
          note: 'too_long',
          reply: { key: replyKey(run), items },
          ...fenced(run),
        }),
      ),
    storeOpts(run, 'refuse a message that is too long'),
  );
  if (!recorded.ok || run.moved) return;
  deps.deliverer.kick(chat);
  log.warn(
    { chat: maskId(chat), ids, chars, maxPromptChars: deps.maxPromptChars },
    'message too long for the agent; refused',
  );
}

/** `out` undefined: the run was told to stop before the agent started. */
async function finish(run: Run, out: ExecuteOutcome | undefined): Promise<void> {
  const { deps, chat, ids, active } = run;
  const { store, now, log } = deps.context;
  const reason = active.reason;
  const aborted =
    out === undefined || (out.type === 'ran' && out.result.type === 'error' && out.result.kind === 'aborted');
  if (aborted && reason) {
    // A /stop drops the messages. An interrupt puts them back to wait, so the next run takes
    // them with the new ones as one prompt, in arrival order; our own shutdown leaves them for
    // the next start. Neither is a crash, so the try is taken back. Not retried: the store
    // refusing this leaves the rows running, and the next start runs them again.
    const session = out?.type === 'ran' ? keptSession(out, true) : undefined;
    const w = await unlessMoved(
      run,
      reason === 'stop'
        ? store.finishRun({
            chat,
            ids,
            now: now(),
            status: 'done',
            note: 'stopped',
            ...(session && { session }),
            ...fenced(run),
          })
        : store.requeueRun(ids, now(), session, run.fence),
    );
    if (!w.ok) log.error({ err: w.message, chat: maskId(chat), ids }, 'could not record the stopped run');
    log.info({ chat: maskId(chat), ids, reason }, 'run aborted');
    return;
  }
  if (!out) throw new Error('a run stopped without a reason');
  let items: OutboundItem[];
  let failed: string | undefined;
  switch (out.type) {
    case 'unavailable':
      items = text(out.error, deps.limit);
      failed = 'agent_unavailable';
      break;
    case 'no_session':
      items = text(NOTICE.relayError, deps.limit);
      failed = 'no_session';
      break;
    case 'ran': {
      const channel = parseChatKey(chat)?.channel ?? 'console';
      items = await composeRunReply(
        deps.mediaPolicy,
        out.result,
        { agent: out.agent, contextReset: out.contextReset, channel, cwd: out.cwd, limit: deps.limit },
        log,
      );
      failed = out.result.type === 'error' ? out.result.kind : undefined;
      break;
    }
  }
  // The answer is kept in memory while the store refuses it; once written it goes out as usual.
  // Stopped while waiting (shutdown): the rows stay running and the next start runs them again.
  const recorded = await persist(
    () => {
      const session = out.type === 'ran' ? keptSession(out, true) : undefined;
      return unlessMoved(
        run,
        store.finishRun({
          chat,
          ids,
          now: now(),
          status: failed ? 'failed' : 'done',
          ...(failed !== undefined && { note: failed }),
          reply: { key: replyKey(run), items },
          ...(session && { session }),
          ...fenced(run),
        }),
      );
    },
    storeOpts(run, 'record the answer'),
  );
  if (!recorded.ok || run.moved) return;
  // The reply goes out now; the run history and the log line below are not worth its wait.
  deps.deliverer.kick(chat);
  const result = out.type === 'ran' ? out.result : undefined;
  if (result) {
    const history = await store.recordRun(runRecord(chat, out.agent, 'user', result, now(), deps.timeZone));
    if (!history.ok) log.warn({ error: history.message }, 'could not record the run history');
  }
  log.info(
    {
      chat: maskId(chat),
      ids,
      agent: out.agent,
      outcome: failed ?? 'ok',
      durationMs: result?.durationMs,
      // How much the CLI printed and whether the byte cap cut it: a cut-off reply is visible here.
      outputBytes: result?.output?.bytes,
      outputTruncated: result?.output?.truncated,
      contextReset: out.type === 'ran' ? out.contextReset : undefined,
      // The CLI's own error line, masked by the agent layer: for the owner, never for the chat.
      detail: result?.type === 'error' ? result.detail : undefined,
    },
    'run finished',
  );
}

/** At most this many progress messages per run: a chatty agent must not flood a phone. */
const MAX_PROGRESS_MESSAGES = 10;
/** A progress message longer than this is cut: the full text may come in the answer anyway. */
const PROGRESS_CHARS = 1000;

/**
 * For /verbose: each message the agent says before its final one goes to the outbox (and out) as
 * it comes, keyed by the run's last message id and its place in the run, so a run redone after a
 * crash does not send the same progress twice. Best effort: a store that refuses it costs only it.
 */
function progressSink(run: Run): (said: string) => void {
  const { deps, chat, ids, active } = run;
  const { store, now, log } = deps.context;
  let n = 0;
  return (said) => {
    if (active.controller.signal.aborted || n >= MAX_PROGRESS_MESSAGES) return;
    n++;
    const cut = cutText(said.trim(), PROGRESS_CHARS);
    void store
      .enqueueReply(chat, `progress:${ids[ids.length - 1]}:${n}`, text(cut, deps.limit), now(), run.fence)
      .then((w) => {
        if (w.ok) deps.deliverer.kick(chat);
        else log.warn({ err: w.message, chat: maskId(chat), ids }, 'could not store a progress message');
      });
  };
}

const text = (t: string, limit: ChunkRules): OutboundItem[] =>
  replyChunks(t, limit).map((c) => ({ type: 'text', text: c }));

const storeOpts = (run: Run, what: string) => ({
  what,
  log: run.deps.context.log,
  fields: { chat: maskId(run.chat), ids: run.ids },
  baseMs: run.deps.storeRetryMs,
  signal: run.active.controller.signal,
});

/** After an unexpected error the rows are failed and the chat told; a store error here is only logged. */
async function failSafely(run: Run): Promise<void> {
  const { deps, chat, ids } = run;
  const { store, now, log } = deps.context;
  try {
    await persist(
      () =>
        unlessMoved(
          run,
          store.finishRun({
            chat,
            ids,
            now: now(),
            status: 'failed',
            note: 'relay_error',
            reply: { key: replyKey(run), items: text(NOTICE.relayError, deps.limit) },
            ...fenced(run),
          }),
        ),
      storeOpts(run, 'record the failed run'),
    );
  } catch (err) {
    log.error({ err, chat: maskId(chat), ids }, 'could not record the failed run');
  }
}
