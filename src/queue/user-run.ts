// One run of a chat's lane for user messages: take the waiting rows the busy policy allows, mark
// them running, ask the agent, and record the answer and the rows' final state in one transaction
// (so after a crash either the run is redone or its reply is in the outbox, never both or neither).
import type { Channel } from '../channels/types.js';
import type { ChunkRules } from '../core/chunk.js';
import { cutText } from '../core/line.js';
import { buildPrompt, fitPrompt, type PromptMessage } from '../core/prompt.js';
import { NOTICE, replyChunks, tooLongNotice } from '../core/reply.js';
import type { ChatKey, OutboundItem } from '../core/types.js';
import { parseChatKey } from '../core/types.js';
import { maskId } from '../log.js';
import { transaction } from '../store/db.js';
import {
  type InboxRow,
  markFinished,
  markPendingAgain,
  markRunning,
  pendingForChat,
} from '../store/inbox.js';
import { enqueueOutbound } from '../store/outbox.js';
import { recordRun, runRecord } from '../store/runs.js';
import { getChatSettings } from '../store/sessions.js';
import { composeRunReply } from './compose.js';
import { type ExecuteDeps, type ExecuteOutcome, execute, keepSession } from './execute.js';
import { fetchRemoteMedia } from './fetch-media.js';
import type { ActiveRun } from './lanes.js';
import { persist } from './persist.js';
import type { MediaPolicy } from './ports.js';
import { spawnTurn } from './spawn-turn.js';

export interface UserRunDeps {
  exec: ExecuteDeps;
  mediaPolicy: MediaPolicy;
  /** The chat's channel when it runs in this process (typing indicator). */
  channel: Channel | undefined;
  /** The channel's splitter rules (its plug-in's textRules). */
  limit: ChunkRules;
  /** How many waiting messages one run takes: 1 for followup, all (up to the cap) otherwise. */
  take: number;
  /** queue.maxPromptChars: the rows one run takes are cut to fit; one row alone longer is refused. */
  maxPromptChars: number;
  timeZone: string | undefined;
  /** Starts sending the chat's outbox: called as soon as the answer is durable. */
  deliver: () => void;
  /** Called after the lane is free and before the run counts as done. */
  afterRun: () => void;
  /** First wait before writing again when the store refuses a write (a full disk). */
  storeRetryMs: number;
}

const toPrompt = (r: InboxRow): PromptMessage => ({
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

export async function runUserBatch(deps: UserRunDeps, chat: ChatKey): Promise<void> {
  const { db, lanes, now, log } = deps.exec;
  const waiting = pendingForChat(db, chat, deps.take);
  if (waiting.length === 0) return deps.afterRun();
  const fit = fitPrompt(waiting.map(toPrompt), deps.maxPromptChars, promptOpts(deps));
  // Rows past the fit stay waiting for the next run; a row too long alone is refused by itself.
  const rows = waiting.slice(0, fit.type === 'fits' ? fit.count : 1);
  const ids = rows.map((r) => r.id);
  let finished!: () => void;
  const run: ActiveRun = {
    kind: 'user',
    label: rows.length > 1 ? `${rows.length} messages` : 'message',
    ids,
    startedAt: now(),
    controller: new AbortController(),
    done: new Promise((r) => {
      finished = r;
    }),
  };
  lanes.begin(chat, run);
  lanes.clearDropNotice(chat);
  const chatId = parseChatKey(chat)?.chatId ?? '';
  typing(deps.channel, chatId, true);
  try {
    if (fit.type === 'too_long') {
      // Refused before its attachments are downloaded: nothing of it will run.
      await refuseTooLong(deps, chat, ids, fit.chars, run);
      return;
    }
    // Attachments stored as links are downloaded now, before the run is marked started: a store that
    // refuses to record them leaves the rows waiting, as below.
    const ready = await fetchRemoteMedia(
      { db, channel: deps.channel, store: store(deps, '', chat, ids, run) },
      chat,
      rows,
    );
    if (!ready) return;
    // Inside the try: a store that refuses this write must not leave the lane taken forever.
    const started = await persist(
      () => markRunning(db, ids, now()),
      store(deps, 'start a run', chat, ids, run),
    );
    // Stopped while waiting for the store: the rows are still waiting, for the next run or start.
    if (!started.ok) return;
    // Built from the rows as downloaded; the fit above counted them with their links, which is
    // near enough for a cap meant to stop 10 MB prompts, not to count characters exactly.
    const prompt = buildPrompt(ready.map(toPrompt), promptOpts(deps));
    const onProgress = getChatSettings(db, chat).verbose ? progressSink(deps, chat, ids, run) : undefined;
    await spawnTurn();
    const out = await execute(deps.exec, chat, prompt, {
      allowNewSession: true,
      signal: run.controller.signal,
      ...(onProgress ? { onProgress } : {}),
    });
    await finish(deps, chat, ids, out, run);
  } catch (err) {
    log.error({ err, chat: maskId(chat), ids }, 'run failed inside the relay');
    await failSafely(deps, chat, ids, run);
  } finally {
    typing(deps.channel, chatId, false);
    lanes.end(chat, run);
    deps.afterRun();
    finished();
  }
}

const promptOpts = (deps: UserRunDeps) => (deps.timeZone ? { timeZone: deps.timeZone } : {});

/** A message longer than queue.maxPromptChars: never run, the sender told why (D26). */
async function refuseTooLong(
  deps: UserRunDeps,
  chat: ChatKey,
  ids: number[],
  chars: number,
  run: ActiveRun,
): Promise<void> {
  const { db, now, log } = deps.exec;
  const items = text(tooLongNotice(chars, deps.maxPromptChars), deps.limit);
  const recorded = await persist(
    () =>
      transaction(db, () => {
        enqueueOutbound(db, chat, `in:${ids[ids.length - 1]}`, items, now());
        markFinished(db, ids, 'failed', now(), 'too_long');
      }),
    store(deps, 'refuse a message that is too long', chat, ids, run),
  );
  if (!recorded.ok) return;
  deps.deliver();
  log.warn(
    { chat: maskId(chat), ids, chars, maxPromptChars: deps.maxPromptChars },
    'message too long for the agent; refused',
  );
}

async function finish(
  deps: UserRunDeps,
  chat: ChatKey,
  ids: number[],
  out: ExecuteOutcome,
  run: ActiveRun,
): Promise<void> {
  const { db, now, log } = deps.exec;
  const reason = run.reason;
  if (out.type === 'ran' && out.result.type === 'error' && out.result.kind === 'aborted' && reason) {
    // Not retried: the store refusing this leaves the rows running, and the next start re-runs them.
    transaction(db, () => {
      // A /stop drops the messages. An interrupt puts them back to wait, so the next run takes
      // them with the new ones as one prompt, in arrival order; our own shutdown leaves them for
      // the next start. Neither is a crash, so the try is taken back.
      if (reason === 'stop') markFinished(db, ids, 'done', now(), 'stopped');
      else markPendingAgain(db, ids, true);
      keepSession(deps.exec, out, true);
    });
    log.info({ chat: maskId(chat), ids, reason }, 'run aborted');
    return;
  }
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
    () =>
      transaction(db, () => {
        enqueueOutbound(db, chat, `in:${ids[ids.length - 1]}`, items, now());
        markFinished(db, ids, failed ? 'failed' : 'done', now(), failed);
        if (out.type === 'ran') keepSession(deps.exec, out, true);
      }),
    store(deps, 'record the answer', chat, ids, run),
  );
  if (!recorded.ok) return;
  // The reply goes out now; the run history and the log line below are not worth its wait.
  deps.deliver();
  const result = out.type === 'ran' ? out.result : undefined;
  if (result) {
    const recorded = recordRun(db, runRecord(chat, out.agent, 'user', result, now(), deps.timeZone));
    if (!recorded.ok) log.warn({ error: recorded.error }, 'could not record the run history');
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
function progressSink(
  deps: UserRunDeps,
  chat: ChatKey,
  ids: number[],
  run: { controller: { signal: AbortSignal } },
): (said: string) => void {
  const { db, now, log } = deps.exec;
  let n = 0;
  return (said) => {
    if (run.controller.signal.aborted || n >= MAX_PROGRESS_MESSAGES) return;
    n++;
    const cut = cutText(said.trim(), PROGRESS_CHARS);
    try {
      enqueueOutbound(db, chat, `progress:${ids[ids.length - 1]}:${n}`, text(cut, deps.limit), now());
      deps.deliver();
    } catch (err) {
      log.warn({ err, chat: maskId(chat), ids }, 'could not store a progress message');
    }
  };
}

const text = (t: string, limit: ChunkRules): OutboundItem[] =>
  replyChunks(t, limit).map((c) => ({ type: 'text', text: c }));

const store = (
  deps: UserRunDeps,
  what: string,
  chat: ChatKey,
  ids: number[],
  run: { controller: { signal: AbortSignal } },
) => ({
  what,
  log: deps.exec.log,
  fields: { chat: maskId(chat), ids },
  baseMs: deps.storeRetryMs,
  signal: run.controller.signal,
});

/** After an unexpected error the rows are failed and the chat told; a store error here is only logged. */
async function failSafely(
  deps: UserRunDeps,
  chat: ChatKey,
  ids: number[],
  run: { controller: { signal: AbortSignal } },
): Promise<void> {
  const { db, now, log } = deps.exec;
  try {
    await persist(
      () =>
        transaction(db, () => {
          markFinished(db, ids, 'failed', now(), 'relay_error');
          enqueueOutbound(db, chat, `in:${ids[ids.length - 1]}`, text(NOTICE.relayError, deps.limit), now());
        }),
      store(deps, 'record the failed run', chat, ids, run),
    );
  } catch (err) {
    log.error({ err, chat: maskId(chat), ids }, 'could not record the failed run');
  }
}
