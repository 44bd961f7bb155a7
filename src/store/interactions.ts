// The interactions port's types, whatever the engine (the SQLite engine: store/sqlite/interactions.ts).
import type { ChatKey, InboundMessage, OutboundItem } from '../core/types.js';

export type InteractionStatus = 'pending' | 'answered' | 'expired' | 'cancelled' | 'restarted';

export interface Interaction {
  id: number;
  chat: ChatKey;
  type: 'approval' | 'question';
  /** The run that asked (`in:<id>`, `schedule:…`): its end closes what it still waits on. */
  runKey: string;
  /** Who asks, as the chat is told: the agent kind (`codex`). */
  asker: string;
  /** Approvals: what "allow for this chat" remembers. */
  toolKind?: string;
  /** The approval's summary or the question, as the agent gave it (untrusted). */
  text: string;
  choices?: string[];
  createdAt: number;
  /** Set when the chat was sent it (one at a time per chat). */
  shownAt?: number;
  expiresAt?: number;
  status: InteractionStatus;
  answer?: string;
  closedAt?: number;
}

export type NewInteraction = Pick<Interaction, 'chat' | 'type' | 'runKey' | 'asker' | 'text'> & {
  toolKind?: string;
  choices?: readonly string[];
};

export interface Allowance {
  toolKind: string;
  createdAt: number;
}

/** How an inbound answer went: `closed` when the question had been closed meanwhile (a timeout). */
export type AnswerOutcome = 'answered' | 'duplicate' | 'closed';

/** A message to the chat written with the change it reports (the outbox's key makes it once). */
export interface Notice {
  key: string;
  items: readonly OutboundItem[];
}

/** The interaction operations, each one transaction. */
export interface InteractionStore {
  /** True when the chat allowed `toolKind` for good. */
  allowed(chat: ChatKey, toolKind: string): Promise<boolean>;
  /** Records a new pending one (not shown yet). */
  add(i: NewInteraction, now: number): Promise<Interaction>;
  /**
   * Marks a pending one shown with its expiry and writes the message that shows it; false (and
   * nothing written) when it is no longer pending.
   */
  show(id: number, now: number, expiresAt: number, notice: Notice): Promise<boolean>;
  /**
   * Answers a pending question with an inbound message: the message's dedupe row (never run), the
   * answer and `reply` (if any) in one transaction.
   */
  answer(
    msg: InboundMessage,
    id: number,
    answer: string,
    now: number,
    reply?: Notice,
  ): Promise<AnswerOutcome>;
  /**
   * An inbound message that is not run and answers nothing (an answer from someone who may not
   * give it): only its dedupe row, `note` saying why, and `reply` if any. False: a duplicate.
   */
  swallow(msg: InboundMessage, now: number, note: string, reply?: Notice): Promise<boolean>;
  /** Closes a pending one (expired, cancelled) with an optional notice; false when it was not pending. */
  close(id: number, status: 'expired' | 'cancelled', now: number, notice?: Notice): Promise<boolean>;
  /**
   * At start: closes every pending one of the chats `owns` accepts as `restarted`, each chat told
   * with `notice(i)`. Returns what it closed.
   */
  closeLeftOver(
    now: number,
    owns: (chat: ChatKey) => boolean,
    notice: (i: Interaction) => Notice,
  ): Promise<Interaction[]>;
  /** The chat's pending ones, oldest first. */
  pending(chat: ChatKey): Promise<Interaction[]>;
  /** Every chat's pending ones (`agentwire status`). */
  allPending(): Promise<Interaction[]>;
  get(id: number): Promise<Interaction | undefined>;
  allowances(chat: ChatKey): Promise<Allowance[]>;
}
