// Where a chat's message goes while a run waits on the chat (issue 17): the answer to the question
// or approval shown, an answer from someone who may not give it, or an ordinary message. Pure;
// table-tested in test/core/interaction-route.test.ts. The queue applies the decision
// (queue/interactions.ts) and records the message either way, so a redelivery answers nothing twice.

/** The one question or approval the chat is shown now (others wait their turn). */
export interface ShownInteraction {
  id: number;
  type: 'approval' | 'question';
  choices?: readonly string[];
  /** Questions in a group: the sender of the message the run answers may answer too. */
  runSender?: string;
}

export interface RouteInput {
  /** The message's text, commands already taken out by the caller. */
  text: string;
  senderId: string;
  isGroup: boolean;
  /** True when the sender is one of the chat's approvers (permissions.approvers). */
  approver: boolean;
  shown: ShownInteraction | undefined;
  /** An approval of this chat was closed a short while ago (a late `1` gets a word, not a run). */
  recentlyClosedApproval: boolean;
  /** The message's attachments as lines for the agent (`[image attached: …]`); they join an answer. */
  attachments?: readonly string[];
}

export type ApprovalChoice = 'allow_once' | 'allow_chat' | 'deny';

export type Route =
  /** Not an answer: stored and run as always. */
  | { type: 'normal' }
  /** Answers the shown approval. */
  | { type: 'approve'; id: number; choice: ApprovalChoice }
  /** Answers the shown question with this text (a choice's text for its number). */
  | { type: 'answer'; id: number; answer: string }
  /** Not acted on: recorded, logged, and `reply` (when set) sent back. */
  | { type: 'ignore'; why: 'not_approver' | 'no_match' | 'nothing_pending'; reply?: string };

const CHOICES: Record<string, ApprovalChoice> = { '1': 'allow_once', '2': 'allow_chat', '3': 'deny' };

/** A bare number, as a person types one: `2`, ` 2 `, `2.`, `#2`. */
export function bareNumber(text: string): number | undefined {
  const m = /^#?\s*(\d{1,3})\s*[.)]?$/.exec(text.trim());
  return m ? Number(m[1]) : undefined;
}

export const APPROVAL_HINT = 'Answer 1 (allow once), 2 (allow for this chat) or 3 (deny).';

export function routeMessage(r: RouteInput): Route {
  const n = bareNumber(r.text);
  const shown = r.shown;
  if (!shown) {
    return n !== undefined && n >= 1 && n <= 3 && r.recentlyClosedApproval
      ? { type: 'ignore', why: 'nothing_pending', reply: 'Nothing is waiting for approval any more.' }
      : { type: 'normal' };
  }
  if (shown.type === 'approval') {
    // Anything but a number is a message: it waits for the run as any other.
    if (n === undefined) return { type: 'normal' };
    if (!r.approver) {
      // In a group the number may be meant for the others; only an approver's counts.
      return r.isGroup
        ? { type: 'normal' }
        : {
            type: 'ignore',
            why: 'not_approver',
            reply: 'Only an approver can answer this (permissions.approvers).',
          };
    }
    const choice = CHOICES[String(n)];
    return choice
      ? { type: 'approve', id: shown.id, choice }
      : { type: 'ignore', why: 'no_match', reply: `No choice ${n}. ${APPROVAL_HINT}` };
  }
  // A question: in a direct chat whoever may talk there answers; in a group the person the run
  // answers, or an approver. Anyone else's message goes on as usual.
  const mayAnswer =
    !r.isGroup || r.approver || (shown.runSender !== undefined && shown.runSender === r.senderId);
  if (!mayAnswer) return { type: 'normal' };
  const text = r.text.trim();
  const choices = shown.choices ?? [];
  if (n !== undefined && choices.length > 0) {
    const picked = choices[n - 1];
    if (picked !== undefined) return { type: 'answer', id: shown.id, answer: picked };
    return {
      type: 'ignore',
      why: 'no_match',
      reply: `No choice ${n}: answer 1 to ${choices.length}, or in your own words.`,
    };
  }
  const attached = r.attachments ?? [];
  if (attached.length > 0)
    return { type: 'answer', id: shown.id, answer: [text, ...attached].filter(Boolean).join('\n') };
  return { type: 'answer', id: shown.id, answer: text || '(no text: the person sent only an attachment)' };
}
