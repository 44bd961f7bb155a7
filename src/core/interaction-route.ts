// Where a chat's message goes while a run waits on the chat: the answer to the question or approval
// shown, an answer from someone who may not give it, or an ordinary message. Pure; table-tested in
// test/core/interaction-route.test.ts. The queue applies the decision (queue/interactions.ts) and
// records the message either way, so a redelivery answers nothing twice.
//
// An answer must be bound to the question the person read. A person types `1` for what is on their
// screen; if the relay changed the question meanwhile (the one they read timed out, was withdrawn or
// answered, and the next one took its place), their `1` would land on a question they never saw.
// So a bare number arriving within `settleMs` of the change is not taken: the person is told, and the
// question now shown is shown again (after which their next answer counts). A bare number is an
// answer only while a question is shown; otherwise it is a message for the agent.

/** The one question or approval the chat is shown now (others wait their turn). */
export interface ShownInteraction {
  id: number;
  type: 'approval' | 'question';
  choices?: readonly string[];
  /** Questions in a group: the sender of the message the run answers may answer too. */
  runSender?: string;
  /** The chat was shown it again after an answer came too soon: its next answer counts. */
  reshown?: boolean;
}

/** The last time what the chat was shown changed: a shown question closed (any reason). */
export interface LastChange {
  /** How long ago, in ms. */
  agoMs: number;
  /** The run that asked it still goes on (so it may ask again, or is about to show its next one). */
  runGoing: boolean;
}

export interface RouteInput {
  /** The message's text, commands already taken out by the caller. */
  text: string;
  senderId: string;
  isGroup: boolean;
  /** True when the sender is one of the chat's approvers (permissions.approvers). */
  approver: boolean;
  shown: ShownInteraction | undefined;
  /** Undefined: no question was shown in this chat lately. */
  lastChange?: LastChange | undefined;
  /** An answer this soon after a change is not taken (permissions.settleSeconds, in ms). */
  settleMs: number;
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
  /** Came too soon after the question changed: not taken; `lead` then the shown question again. */
  | { type: 'reshow'; id: number; lead: string }
  /** Not acted on: recorded, logged, and `reply` (when set) sent back. */
  | { type: 'ignore'; why: 'not_approver' | 'no_match' | 'changed'; reply?: string };

const CHOICES: Record<string, ApprovalChoice> = { '1': 'allow_once', '2': 'allow_chat', '3': 'deny' };

/** A bare number, as a person types one: `2`, ` 2 `, `2.`, `#2`. */
export function bareNumber(text: string): number | undefined {
  const m = /^#?\s*(\d{1,3})\s*[.)]?$/.exec(text.trim());
  return m ? Number(m[1]) : undefined;
}

export const APPROVAL_HINT = 'Answer 1 (allow once), 2 (allow for this chat) or 3 (deny).';

/** The question changed so recently that an answer may have been typed for the one before. */
const tooSoon = (r: RouteInput): boolean => r.lastChange !== undefined && r.lastChange.agoMs < r.settleMs;

export function routeMessage(r: RouteInput): Route {
  const n = bareNumber(r.text);
  const shown = r.shown;
  if (!shown) {
    // Nothing shown: a number is a message for the agent (its own reply may list numbered choices),
    // unless the question it was surely typed for closed a moment ago while its run still goes on.
    return n !== undefined && tooSoon(r) && r.lastChange?.runGoing
      ? {
          type: 'ignore',
          why: 'changed',
          reply: `The question on your screen closed just now, so your ${n} was not taken. Send it again if it was meant for the agent.`,
        }
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
    if (tooSoon(r) && !shown.reshown) return reshow(shown, n);
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
    // Words say what they answer; a bare number does not.
    if (tooSoon(r) && !shown.reshown) return reshow(shown, n);
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

function reshow(shown: ShownInteraction, n: number): Route {
  return {
    type: 'reshow',
    id: shown.id,
    lead: `The question changed just as your ${n} came in, so it was not taken. If it is your answer to this one, send it again:`,
  };
}
