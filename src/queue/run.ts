// One run of a chat's run slot for user messages, from claim to reply: claim the waiting rows the busy
// policy allows (they become `running`), fetch their attachments, ask the agent, compose the answer,
// and finish: the answer, the rows' final state and the session in one store operation (so after a
// crash either the run is redone or its reply is in the outbox, never both or neither), then the
// run history. It calls nothing of the queue: the run slot is taken here and given back when the
// returned Promise settles; what runs next is the queue's business.

import type { Channel } from '../channels/types.js';
import { buildPrompt } from '../core/prompt.js';
import { leastRole, type Role } from '../core/roles.js';
import type { ChatKey } from '../core/types.js';
import { parseChatKey } from '../core/types.js';
import { maskId } from '../log.js';
import { spawnTurn } from '../runner/spawn-turn.js';
import type { Fence } from '../store/ownership.js';
import { chooseRun, runLimit } from './busy-policy.js';
import { type ExecuteOutcome, execute, type RunContext } from './execute.js';
import { fetchRemoteMedia } from './fetch-media.js';
import { persist } from './persist.js';
import { type ProgressFeed, statusFeed } from './progress-feed.js';
import { statusKey } from './progress-outbox.js';
import { readyKey } from './ready-key.js';
import { recoverChat } from './recovery.js';
import { failSafely, finish, progressSink, refuseTooLong } from './run-finish.js';
import type { ActiveRun } from './run-slots.js';
import { fenced, type Run, type RunDeps, storeOpts, toPrompt, unlessMoved } from './run-types.js';

export { type RunDeps, toPrompt } from './run-types.js';

function typing(channel: Channel | undefined, chatId: string, on: boolean): void {
  // Best effort: a typing indicator that fails must never fail the run.
  channel?.typing?.(chatId, on).catch(() => undefined);
}

/**
 * Runs the chat's next batch, if it has one. The run slot is taken before anything is awaited, so a
 * caller that starts runs while a slot is free never starts more than the cap. Resolves with whether
 * the chat's next message already waits when the run looked (under the chat's lease), else undefined.
 */
export async function runChat(deps: RunDeps, chat: ChatKey): Promise<boolean | undefined> {
  const end: RunEnd = { leased: false, clean: true };
  try {
    await runOnce(deps, chat, end);
  } catch (err) {
    if (end.leased) await deps.context.owner?.drop(chat, end.fence);
    throw err;
  }
  return end.leased ? handOn(deps, chat, end.clean && !end.moved, end.fence) : undefined;
}

/** How a run ended, for what its lease becomes: held (`leased`, under `fence`), without a failure, not moved. */
interface RunEnd {
  leased: boolean;
  fence?: Fence;
  clean: boolean;
  moved?: boolean;
}

async function runOnce(deps: RunDeps, chat: ChatKey, end: RunEnd): Promise<void> {
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
  let feed: ProgressFeed | undefined;
  try {
    // Processes share the store: the chat's lease first, and every write of the run carries it.
    const owner = deps.context.owner;
    if (owner) {
      const lease = await owner.take(chat, { forRun: true });
      // Another process runs the chat: it (and only it) is told a message waits, and runs it after its own.
      if (!lease) {
        await owner.notify('chat_ready', readyKey(chat, owner.holderOf(chat)));
        return;
      }
      end.leased = true;
      end.fence = lease.fence;
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
    end.clean = false;
    log.error({ err, chat: maskId(chat), ids: run.ids }, 'run failed inside the relay');
    if (run.ids.length > 0 && !run.moved) await failSafely(run);
  } finally {
    void feed?.finish();
    if (typed) typing(deps.channel, chatId, false);
    runSlots.end(chat, active);
    finished();
    end.moved = run.moved === true;
  }
}

/**
 * After a run under the chat's lease: when the chat's next message already waits (and the run ended
 * cleanly), the lease is kept for the run that takes it, else given back so a process beside this
 * one may take the chat. Whether one waits is returned: the queue marks the chat ready on it.
 */
async function handOn(
  deps: RunDeps,
  chat: ChatKey,
  clean: boolean,
  fence: Fence | undefined,
): Promise<boolean | undefined> {
  const owner = deps.context.owner;
  if (!owner) return undefined;
  let waiting: boolean | undefined;
  try {
    waiting = clean ? (await deps.context.store.countPending(chat)) > 0 : undefined;
    if (waiting && (await owner.keep(chat, fence))) return true;
  } catch {
    // The store could not say: the lease is given back, and the queue asks again after.
    waiting = undefined;
  }
  await owner.drop(chat, fence);
  return waiting;
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

const promptOpts = (deps: RunDeps) => (deps.timeZone ? { timeZone: deps.timeZone } : {});
