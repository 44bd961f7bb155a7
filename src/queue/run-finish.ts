// The end of a user run: its answer, or why there is none (stopped, interrupted, too long, a relay
// error), written with the rows' final state and the session in one store operation, then the run
// history; and the /verbose progress messages it sends while it works.

import { cutText } from '../core/line.js';
import { NOTICE, tooLongNotice } from '../core/reply.js';
import type { OutboundItem } from '../core/types.js';
import { parseChatKey } from '../core/types.js';
import { maskId } from '../log.js';
import { runRecord } from '../store/contract/runs.js';
import { composeRunReply } from './compose.js';
import { type ExecuteOutcome, keptSession } from './execute.js';
import { type Persisted, persist } from './persist.js';
import { fenced, type Run, replyKey, storeOpts, text, unlessMoved } from './run-types.js';

/** A message longer than queue.maxPromptChars: never run, the sender told why (D26). */
export async function refuseTooLong(run: Run, chars: number): Promise<void> {
  const { deps, chat, ids } = run;
  const items = text(tooLongNotice(chars, deps.maxPromptChars), deps.limit);
  const recorded = await failRun(run, 'too_long', items, 'refuse a message that is too long');
  if (!recorded.ok || run.moved) return;
  deps.deliverer.kick(chat);
  deps.context.log.warn(
    { chat: maskId(chat), ids, chars, maxPromptChars: deps.maxPromptChars },
    'message too long for the agent; refused',
  );
}

/**
 * The run's rows failed with `note` and the chat told `items`, in one store operation retried while
 * the store refuses it for a passing reason; nothing is written once the run has moved to another
 * holder (its fence says so).
 */
function failRun(run: Run, note: string, items: OutboundItem[], what: string): Promise<Persisted<unknown>> {
  const { deps, chat, ids } = run;
  const { store, now } = deps.context;
  return persist(
    () =>
      unlessMoved(
        run,
        store.finishRun({
          chat,
          ids,
          now: now(),
          status: 'failed',
          note,
          reply: { key: replyKey(run), items },
          ...fenced(run),
        }),
      ),
    storeOpts(run, what),
  );
}

/** `out` undefined: the run was told to stop before the agent started. */
export async function finish(run: Run, out: ExecuteOutcome | undefined): Promise<void> {
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
        {
          agent: out.agent,
          contextReset: out.contextReset,
          ...(out.moved && { moved: true }),
          channel,
          cwd: out.cwd,
          limit: deps.limit,
        },
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
export function progressSink(run: Run): (said: string) => void {
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

/** After an unexpected error the rows are failed and the chat told; a store error here is only logged. */
export async function failSafely(run: Run): Promise<void> {
  const { deps, chat, ids } = run;
  try {
    await failRun(run, 'relay_error', text(NOTICE.relayError, deps.limit), 'record the failed run');
  } catch (err) {
    deps.context.log.error({ err, chat: maskId(chat), ids }, 'could not record the failed run');
  }
}
