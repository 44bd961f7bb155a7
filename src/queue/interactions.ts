// The runs' questions to their chats: a warm agent's permission requests (the Approver
// on each AgentRequest) and the `ask_user` tool. Each is stored (store/interactions.ts), shown to
// the chat one at a time per chat (the others wait their turn, in order), and settled exactly once:
// by the chat's answer (the queue routes it here after recording it), by the timeout (an approval
// is then denied, a question gets "no answer"; the chat is told), or by its run ending (/stop, an
// interrupt, the turn's own end). What is waiting lives in this process's memory: a restart ends
// every run, so `start` closes whatever a previous process left and tells the chats.
import type { AgentKind, ApprovalAnswer, ApprovalQuestion, Approver } from '../agents/types.js';
import { isApprover } from '../core/approvers.js';
import type { ApprovalChoice, LastChange, ShownInteraction } from '../core/interaction-route.js';
import {
  MAX_CHOICES,
  restartNotice,
  shownApproval,
  timeoutNotice,
  waitLength,
} from '../core/interaction-text.js';
import type { ChannelName, ChatKey, OutboundItem } from '../core/types.js';
import type { Logger } from '../log.js';
import { maskId } from '../log.js';
import type { Interaction, InteractionStore } from '../store/interactions.js';
import { denyTooLong, showItems } from './ask-items.js';
import { ChatPlaces, realTimer, ScreenChanges, type Timer, WaitClocks } from './wait-books.js';

export type { Timer } from './wait-books.js';

export interface InteractionsDeps {
  store: InteractionStore;
  /** The chat's outbox has something new. */
  kick(chat: ChatKey): void;
  textItems(chat: ChatKey, text: string): OutboundItem[];
  now(): number;
  log: Logger;
  /** permissions.timeoutMinutes, in ms. */
  approvalTimeoutMs: number;
  /** permissions.settleSeconds, in ms (core/interaction-route.ts). Default 0: no settling. */
  settleMs?: number;
  /** permissions.approvers; undefined: the owner. */
  approvers: readonly string[] | undefined;
  /** The owner's sender id on a channel (queue/owner.ts). */
  owner(channel: ChannelName): string | undefined;
  /** `access.owners`: approvers by default too. */
  owners?: readonly string[];
  timer?: Timer;
}

/** How one wait ended. */
type Outcome = { type: 'answered'; answer: string } | { type: 'expired' } | { type: 'cancelled' };

interface Waiter {
  i: Interaction;
  timeoutMs: number;
  runSender?: string;
  shown: boolean;
  /** Being closed (timeout, run ended): an answer arriving meanwhile is too late. */
  closing?: boolean;
  /** Shown again after an answer came too soon: the next answer counts. */
  reshown?: boolean;
  settle(o: Outcome): void;
  cancelTimer?: () => void;
}

/** One run's side: who asks, and how many questions it asked so far (for the outbox keys). */
interface RunScope {
  chat: ChatKey;
  asker: AgentKind;
  asked: number;
}

/**
 * Questions one chat may have waiting at once. An agent is untrusted: past this, a request is denied
 * (a question gets no answer) at once instead of piling up in the store behind the one shown.
 */
export const MAX_WAITING_PER_CHAT = 10;
/** What of an agent's text is kept (the chat is shown less, see core/interaction-text.ts). */
const KEEP_CHARS = 2000;
const KIND_CHARS = 200;
/** An answer longer than this is cut: it goes back to the agent as a tool result. */
const ANSWER_CHARS = 10_000;

export class Interactions {
  private readonly waiters = new Map<number, Waiter>();
  /** Per chat, the ids waiting in the order they were asked; the first is the one shown. */
  private readonly lines = new Map<ChatKey, number[]>();
  private readonly runs = new Map<string, RunScope>();
  /** Per chat: when a shown question last closed (see lastChange). */
  private readonly changes: ScreenChanges;
  /** Asks under way per chat, waiting or about to (see MAX_WAITING_PER_CHAT). */
  private readonly places = new ChatPlaces(MAX_WAITING_PER_CHAT);
  private readonly timer: Timer;
  /** Per run: how long it has waited for a person (see waitedMs). */
  private readonly clocks: WaitClocks;

  readonly store: InteractionStore;

  constructor(private readonly d: InteractionsDeps) {
    this.timer = d.timer ?? realTimer;
    this.clocks = new WaitClocks(d.now);
    this.changes = new ScreenChanges(d.now);
    this.store = d.store;
  }

  readonly kick = (chat: ChatKey): void => this.d.kick(chat);
  readonly textItems = (chat: ChatKey, text: string): OutboundItem[] => this.d.textItems(chat, text);

  get log(): Logger {
    return this.d.log;
  }

  /** At start: what a previous process left waiting is closed (denied) and its chats told. */
  async start(owns: (chat: ChatKey) => boolean): Promise<void> {
    const closed = await this.d.store.closeLeftOver(this.d.now(), owns, (i) => ({
      key: `ask-restart:${i.id}`,
      items: this.d.textItems(i.chat, restartNotice(i)),
    }));
    if (closed.length > 0)
      this.d.log.warn({ closed: closed.length }, 'closed questions a previous relay left');
    for (const chat of new Set(closed.map((i) => i.chat))) this.d.kick(chat);
  }

  isApprover(channel: ChannelName, senderId: string): boolean {
    return isApprover(this.d.approvers, channel, senderId, this.d.owner(channel), this.d.owners);
  }

  /**
   * The Approver of one run. `signal` is the run's: a /stop or interrupt denies what it waits on.
   * Call `closeRun(runKey)` when the run ends.
   */
  approver(chat: ChatKey, runKey: string, asker: AgentKind): Approver {
    this.scope(chat, runKey, asker);
    return (q, signal) => this.approve(chat, runKey, asker, q, signal);
  }

  /** `ask_user`: the answer's text, or undefined after `timeoutMs` (or when the run ended). */
  async ask(
    q: { chat: ChatKey; runKey: string; question: string; choices?: readonly string[]; runSender?: string },
    timeoutMs: number,
  ): Promise<string | undefined> {
    const scope = this.runs.get(q.runKey);
    if (!this.places.take(q.chat)) return undefined;
    try {
      return await this.askQuestion(q, timeoutMs, scope?.asker);
    } finally {
      this.places.give(q.chat);
    }
  }

  private async askQuestion(
    q: { chat: ChatKey; runKey: string; question: string; choices?: readonly string[]; runSender?: string },
    timeoutMs: number,
    asker: string | undefined,
  ): Promise<string | undefined> {
    const i = await this.d.store.add(
      {
        chat: q.chat,
        type: 'question',
        runKey: q.runKey,
        asker: asker ?? 'the agent',
        text: q.question.slice(0, KEEP_CHARS),
        ...(q.choices?.length && {
          choices: q.choices.slice(0, MAX_CHOICES).map((c) => c.slice(0, KEEP_CHARS)),
        }),
      },
      this.d.now(),
    );
    const o = await this.wait(i, timeoutMs, q.runSender);
    return o.type === 'answered' ? o.answer : undefined;
  }

  /**
   * How long the run has waited for a person so far: the time during which at least one of its
   * questions or approvals was open (waiting its turn or shown). A warm turn's timeout does not
   * count it (drivers/turn-timer.ts), so a question left unanswered ends in "no answer" or a deny,
   * not in a killed turn.
   */
  waitedMs(runKey: string): number {
    return this.clocks.waitedMs(runKey);
  }

  /** The run ended: what it still waits on is closed. */
  closeRun(runKey: string): void {
    this.runs.delete(runKey);
    this.clocks.drop(runKey);
    for (const w of [...this.waiters.values()]) if (w.i.runKey === runKey) void this.end(w, 'cancelled');
  }

  /** For routing a message (core/interaction-route.ts): the one the chat sees now. */
  shown(chat: ChatKey): ShownInteraction | undefined {
    const id = this.lines.get(chat)?.[0];
    const w = id === undefined ? undefined : this.waiters.get(id);
    // One being closed takes no answer: it counts as a change (lastChange).
    if (!w?.shown || w.closing) return undefined;
    return {
      id: w.i.id,
      type: w.i.type,
      ...(w.i.choices && { choices: w.i.choices }),
      ...(w.runSender !== undefined && { runSender: w.runSender }),
      ...(w.reshown && { reshown: true }),
    };
  }

  /** The chat's shown one again, after `lead`; undefined when it is not shown any more. */
  reshowItems(chat: ChatKey, id: number, lead: string): OutboundItem[] | undefined {
    const w = this.waiters.get(id);
    return w?.shown && !w.closing && w.i.chat === chat ? showItems(this.textItems, w.i, lead) : undefined;
  }

  /** The chat was shown it again: its next answer counts. */
  reshown(id: number): void {
    const w = this.waiters.get(id);
    if (w) w.reshown = true;
  }

  /** Who asks the shown one (`codex`). */
  shownAsker(chat: ChatKey): string | undefined {
    const id = this.lines.get(chat)?.[0];
    return id === undefined ? undefined : this.waiters.get(id)?.i.asker;
  }

  /** How long the settle time allows an answer (core/interaction-route.ts). */
  get settleMs(): number {
    return this.d.settleMs ?? 0;
  }

  /** When the question the chat saw last changed, while that still matters (within settleMs). */
  lastChange(chat: ChatKey): LastChange | undefined {
    const first = this.waiters.get(this.lines.get(chat)?.[0] ?? -1);
    if (first?.shown && first.closing) return { agoMs: 0, runGoing: true };
    // A run that ended has no clock left (closeRun): its reply is what the chat reads now.
    return this.changes.last(chat, this.settleMs, (runKey) => this.clocks.has(runKey));
  }

  /** Processes share the store: told of an answer recorded here for a run of another (shared-start.ts). */
  elsewhere: ((id: number) => void) | undefined;
  /** The store recorded an answer: the run waiting on it goes on (`local`: recorded by this process). */
  answered(id: number, answer: ApprovalChoice | string, local = true): void {
    const w = this.waiters.get(id);
    if (!w && local) this.elsewhere?.(id);
    const cut = answer.length > ANSWER_CHARS ? `${answer.slice(0, ANSWER_CHARS)}…` : answer;
    if (w && !w.closing) this.finish(w, { type: 'answered', answer: cut });
  }

  /** True while a run of this process waits on `id`. */
  readonly waits = (id: number): boolean => this.waiters.has(id);

  /** How many wait on this process (tests, status). */
  get waiting(): number {
    return this.waiters.size;
  }

  private scope(chat: ChatKey, runKey: string, asker: AgentKind): RunScope {
    let s = this.runs.get(runKey);
    if (!s) {
      s = { chat, asker, asked: 0 };
      this.runs.set(runKey, s);
    }
    return s;
  }

  private async approve(
    chat: ChatKey,
    runKey: string,
    asker: AgentKind,
    q: ApprovalQuestion,
    signal: AbortSignal,
  ): Promise<ApprovalAnswer> {
    if (signal.aborted) return { type: 'deny', reason: 'the turn was cancelled' };
    if (!this.places.take(chat))
      return { type: 'deny', reason: 'too many requests are waiting for an answer in this chat' };
    try {
      // Remembered for this chat: answered at once, as "once" (the driver's CLI is asked each time).
      const toolKind = q.toolKind.slice(0, KIND_CHARS);
      if (await this.d.store.allowed(chat, toolKind)) return { type: 'allow_once' };
      // Shown whole or not at all: a cut would show less than runs.
      if (shownApproval(q.summary) === undefined)
        return await denyTooLong(this.d, chat, {
          runKey,
          asker,
          toolKind,
          question: q,
          keepChars: KEEP_CHARS,
        });
      const i = await this.d.store.add(
        {
          chat,
          type: 'approval',
          runKey,
          asker,
          toolKind,
          text: q.summary.slice(0, KEEP_CHARS),
        },
        this.d.now(),
      );
      const cancel = () => {
        const w = this.waiters.get(i.id);
        if (w) void this.end(w, 'cancelled');
      };
      signal.addEventListener('abort', cancel, { once: true });
      const o = await this.wait(i, this.d.approvalTimeoutMs);
      signal.removeEventListener('abort', cancel);
      if (o.type === 'expired')
        return { type: 'deny', reason: `no answer in ${waitLength(this.d.approvalTimeoutMs, 'long')}` };
      if (o.type === 'cancelled') return { type: 'deny', reason: 'the turn was cancelled' };
      if (o.answer === 'allow_once' || o.answer === 'allow_chat') return { type: o.answer };
      return { type: 'deny', reason: 'denied from the phone' };
    } catch (err) {
      // Never rejects (the contract): a store that fails means nobody was asked, so the answer is no.
      this.d.log.error({ err, chat: maskId(chat) }, 'could not ask for an approval; denied');
      return { type: 'deny', reason: 'the relay could not ask' };
    } finally {
      this.places.give(chat);
    }
  }

  private wait(i: Interaction, timeoutMs: number, runSender?: string): Promise<Outcome> {
    return new Promise<Outcome>((resolve) => {
      const w: Waiter = {
        i,
        timeoutMs,
        shown: false,
        ...(runSender !== undefined && { runSender }),
        settle: resolve,
      };
      this.waiters.set(i.id, w);
      this.clocks.started(i.runKey);
      const line = this.lines.get(i.chat) ?? [];
      line.push(i.id);
      this.lines.set(i.chat, line);
      if (line.length === 1) void this.show(w);
    });
  }

  private async show(w: Waiter): Promise<void> {
    const { i } = w;
    const now = this.d.now();
    const scope = this.runs.get(i.runKey);
    const n = scope ? ++scope.asked : 0;
    try {
      // The key names the run and the question's place in it, and the row: a run redone after a
      // restart asks again, and that new question must be shown, not taken for the old one.
      const ok = await this.d.store.show(i.id, now, now + w.timeoutMs, {
        key: `ask:${i.runKey}:${n}:${i.id}`,
        items: showItems(this.textItems, i),
      });
      if (!ok) return this.finish(w, { type: 'cancelled' });
    } catch (err) {
      this.d.log.error({ err, chat: maskId(i.chat) }, 'could not show a question');
      return this.finish(w, { type: 'cancelled' });
    }
    if (!this.waiters.has(i.id)) return; // settled meanwhile
    w.shown = true;
    w.cancelTimer = this.timer(() => void this.end(w, 'expired'), w.timeoutMs);
    this.d.kick(i.chat);
    this.d.log.info({ chat: maskId(i.chat), id: i.id, type: i.type }, 'asked the chat');
  }

  /** Closes it in the store (the chat told when it saw it), then lets the run go on. */
  private async end(w: Waiter, why: 'expired' | 'cancelled'): Promise<void> {
    if (!this.waiters.has(w.i.id) || w.closing) return;
    w.closing = true;
    const text =
      why === 'expired'
        ? timeoutNotice(w.i, w.timeoutMs)
        : `(${w.i.asker} stopped waiting for an answer: its run ended.)`;
    const notice = w.shown
      ? { key: `ask-${why}:${w.i.id}`, items: this.d.textItems(w.i.chat, text) }
      : undefined;
    try {
      // Closed before the next question is shown, so the chat reads the two in that order.
      await this.d.store.close(w.i.id, why, this.d.now(), notice);
      if (notice) this.d.kick(w.i.chat);
      this.d.log.info({ chat: maskId(w.i.chat), id: w.i.id, type: w.i.type, why }, 'question closed');
    } catch (err) {
      this.d.log.error({ err, chat: maskId(w.i.chat) }, 'could not close a question');
    } finally {
      // Whatever the store did, the run must not wait forever.
      this.finish(w, { type: why });
    }
  }

  private finish(w: Waiter, o: Outcome): void {
    const { i } = w;
    if (!this.waiters.delete(i.id)) return;
    this.clocks.ended(i.runKey);
    w.cancelTimer?.();
    // What the chat saw changed under the person (it ran out of time, or the agent withdrew it): an
    // answer typed for it may still be on its way (see lastChange). A question the chat answered
    // changed nothing behind the person's back: the next number is for the next question shown.
    if (w.shown && o.type !== 'answered') this.changes.closed(i.chat, i.runKey);
    const line = this.lines.get(i.chat) ?? [];
    const wasShown = line[0] === i.id;
    const rest = line.filter((id) => id !== i.id);
    if (rest.length === 0) this.lines.delete(i.chat);
    else this.lines.set(i.chat, rest);
    w.settle(o);
    // The next one in the chat's line is shown now.
    const next = wasShown && rest[0] !== undefined ? this.waiters.get(rest[0]) : undefined;
    if (next) void this.show(next);
  }
}
