// The one place a warm driver waits for a person (approvals from the phone). Each
// protocol's pure mapping turns its request into an ApprovalQuestion and a Verdict back into its
// answer; this decides the Verdict: by the policy alone (`allow`, `deny`), or under `ask` by the
// turn's Approver, raced against the turn's cancel so a /stop or timeout never waits on a phone.

import type { ApprovalAnswer, ApprovalQuestion, Approver } from '../agents/types.js';
import { redactOutbound } from '../core/outbound-redact.js';
import { type ProgressListener, progressEmitter } from '../core/progress-event.js';
import type { PermissionPolicy } from './types.js';

/** What the driver answers its CLI: a person's (or the policy's) answer, or "the turn is being stopped". */
export type Verdict = ApprovalAnswer | { type: 'cancelled' };

export const POLICY_DENY = 'not allowed by the relay’s permission policy';
export const NO_APPROVER = 'nobody can be asked about this turn';

/** The answer a policy gives without asking anyone. */
export function policyVerdict(policy: 'allow' | 'deny'): Verdict {
  return policy === 'allow' ? { type: 'allow_once' } : { type: 'deny', reason: POLICY_DENY };
}

/** What a driver knows when its CLI asks: the policy, and the running turn's Approver and signal. */
export interface Asking {
  policy: PermissionPolicy;
  approve?: Approver | undefined;
  /** Aborted when the turn is stopped (/stop, timeout) or ends; absent outside a turn. */
  signal?: AbortSignal | undefined;
}

/**
 * The verdict on one request of the CLI. `question` is undefined for a request no person is asked
 * about (it is declined). The signal's abort ends the wait at once with `cancelled`, whatever the
 * Approver does with its own copy of the signal. Under `ask` with no Approver (a heartbeat, `agent
 * run`, a question between turns) the answer is a deny: nobody is there to ask.
 */
export async function decide(question: ApprovalQuestion | undefined, asking: Asking): Promise<Verdict> {
  const { policy, approve, signal } = asking;
  if (signal?.aborted) return { type: 'cancelled' };
  if (!question) return { type: 'deny', reason: POLICY_DENY };
  if (policy !== 'ask') return policyVerdict(policy);
  if (!approve || !signal) return { type: 'deny', reason: NO_APPROVER };
  let onAbort = () => {};
  const aborted = new Promise<Verdict>((resolve) => {
    onAbort = () => resolve({ type: 'cancelled' });
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const asked = Promise.resolve()
      .then(() => approve(question, signal))
      .then(
        checked,
        // The contract says an Approver never rejects; if one does, nothing is granted.
        (): Verdict => ({ type: 'deny', reason: NO_APPROVER }),
      );
    const verdict = await Promise.race([asked, aborted]);
    return signal.aborted ? { type: 'cancelled' } : verdict;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** Only a well-formed allow grants anything: any other value an Approver hands back is a deny. */
function checked(a: unknown): Verdict {
  const type = (a as { type?: unknown } | null)?.type;
  if (type === 'allow_once' || type === 'allow_chat') return { type };
  const reason = (a as { reason?: unknown } | null)?.reason;
  return { type: 'deny', reason: type === 'deny' && typeof reason === 'string' ? reason : NO_APPROVER };
}

// Characters that would make a phone show something other than what runs: controls (ANSI escapes
// start with one), zero-width characters and bidi overrides that reorder the text on screen.
const HIDDEN = /[\u0000-\u0008\u000e-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;
const TAIL = 40;

/**
 * Agent-chosen text as one short line, for a name or a reason (never an approval's summary, which
 * goes whole to core/interaction-text.ts): whitespace runs are one space, hidden and reordering
 * characters are dropped, and a long text keeps its head and its tail around "…". Registered
 * credentials are masked first.
 */
export function oneLine(text: string, max = 160): string {
  // Masked before the cut: a credential cut in two here would reach the store's redaction as halves.
  const flat = redactOutbound(text).replace(HIDDEN, '').replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const tail = Math.min(TAIL, Math.floor(max / 3));
  return `${flat.slice(0, max - tail - 3).trimEnd()} … ${flat.slice(-tail).trimStart()}`;
}

/** A turn's Asking, with the abort its stop (or end) calls: a question still waiting is then cancelled. */
export function turnAsking(
  policy: PermissionPolicy,
  approve: Approver | undefined,
): Asking & { abort(): void } {
  const ctl = new AbortController();
  return { policy, approve, signal: ctl.signal, abort: () => ctl.abort() };
}

/**
 * One request's own Asking: aborted with the turn, or alone when the CLI withdraws the request
 * (claude's control_cancel_request), so the person is no longer asked. `release` drops the link to
 * the turn once the request is answered.
 */
export function oneRequest(asking: Asking): Asking & { abort(): void; release(): void } {
  const ctl = new AbortController();
  const parent = asking.signal;
  const onAbort = () => ctl.abort();
  if (parent?.aborted) ctl.abort();
  else parent?.addEventListener('abort', onAbort, { once: true });
  const release = () => parent?.removeEventListener('abort', onAbort);
  return {
    ...asking,
    signal: parent ? ctl.signal : undefined,
    abort: () => {
      release();
      ctl.abort();
    },
    release,
  };
}

/** A path inside the agent's folder is shown relative to it: shorter on a phone, and no home path. */
export function shortPath(path: string, cwd: string | undefined): string {
  if (!cwd) return path;
  const root = cwd.endsWith('/') ? cwd : `${cwd}/`;
  return path.startsWith(root) ? path.slice(root.length) || '.' : path;
}

/**
 * The turn's approver, telling its progress listener first that the turn now waits for the person:
 * every driver asks through it, so one place says "asking" for all of them.
 */
export function announced(approve: Approver, onEvent: ProgressListener | undefined): Approver {
  if (!onEvent) return approve;
  const emit = progressEmitter(onEvent);
  return (question, signal) => {
    emit([{ type: 'asking', question: question.summary }]);
    return approve(question, signal);
  };
}
