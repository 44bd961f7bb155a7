// What the chat reads about questions and approvals. Everything in them the agent chose (the summary,
// the question, the choices, even its tool kind) is untrusted. The approval that asks is the exact
// command, whole: hidden characters written out (core/visible.ts), never cut (one too long to show is
// not asked at all), and sent as code, never read as Markdown (OutboundItem `code`). Elsewhere agent
// text is kept to one line (a question to a few), cut short, and the characters chat apps read as
// formatting are swapped for look-alikes, so an agent cannot draw a fake "1 allow once" line or
// push the real choices off the screen. Pure; tested in test/core/interaction-text.test.ts.
import { sanitizeLine } from './line.js';
import { visible } from './visible.js';

/** A question or approval as a chat command and /status see it. */
export interface PendingLine {
  id: number;
  type: 'approval' | 'question';
  asker: string;
  text: string;
  toolKind?: string;
  choices?: readonly string[];
  createdAt: number;
  shownAt?: number;
}

const SUMMARY_CHARS = 200;
const QUESTION_CHARS = 1000;
const CHOICE_CHARS = 100;
export const MAX_CHOICES = 9;

// WhatsApp, Telegram and Slack-style markup: * _ ~ ` (and > at a line start, which one line has not).
const MARKUP: Record<string, string> = { '*': '∗', _: 'ˍ', '~': '∼', '`': 'ˋ' };

/** One line of agent text, safe to show: no new lines, no control or bidi characters, no markup. */
export function agentLine(text: string, max: number): string {
  return sanitizeLine(
    text.replace(/[*_~`]/g, (c) => MARKUP[c] ?? c),
    max,
  );
}

/** `codex wants to run: rm -rf build/`, one line. */
export function shortApproval(i: Pick<PendingLine, 'asker' | 'text'>, max = SUMMARY_CHARS): string {
  return `${agentLine(i.asker, 30)} wants to ${agentLine(i.text, max)}`;
}

/**
 * The longest approval text the chat is shown (hidden characters written out). A longer one is not
 * asked: any cut would show less than runs, and a long enough text hides its middle on a phone.
 */
export const MAX_SHOWN_CHARS = 1000;

/** The approval's text as shown: exact and whole; undefined when too long to show. */
export function shownApproval(text: string): string | undefined {
  const shown = visible(text);
  return shown.length > MAX_SHOWN_CHARS ? undefined : shown;
}

/** The message that asks for an approval (sent as code); undefined when too long to show. */
export function approvalMessage(i: Pick<PendingLine, 'asker' | 'text'>): string | undefined {
  const shown = shownApproval(i.text);
  if (shown === undefined) return undefined;
  return `${agentLine(i.asker, 30)} wants to ${shown}\n1 allow once · 2 allow for this chat · 3 deny`;
}

/** Told to the chat instead of asking, when the approval is too long to show. */
export function tooLongNotice(i: Pick<PendingLine, 'asker' | 'text'>): string {
  const n = visible(i.text).length;
  return `${agentLine(i.asker, 30)} asked for approval of something too long to show here (${n} characters, at most ${MAX_SHOWN_CHARS}): denied.`;
}

/** The message that asks the agent's question; the choices numbered. */
export function questionMessage(i: Pick<PendingLine, 'asker' | 'text' | 'choices'>): string {
  const question = i.text
    .split(/\r\n|\r|\n/)
    .slice(0, 10)
    .map((l) => agentLine(l, QUESTION_CHARS))
    .filter(Boolean)
    .join('\n');
  const cut = question.length > QUESTION_CHARS ? `${question.slice(0, QUESTION_CHARS)}…` : question;
  const choices = (i.choices ?? [])
    .slice(0, MAX_CHOICES)
    .map((c, n) => `${n + 1} ${agentLine(c, CHOICE_CHARS)}`);
  const how =
    choices.length > 0 ? 'Reply with a number, or in your own words.' : 'Your next message is the answer.';
  return [`${agentLine(i.asker, 30)} asks: ${cut}`, ...choices, how].join('\n');
}

const ago = (ms: number): string => {
  const m = Math.max(0, Math.round(ms / 60_000));
  return m < 1 ? 'just now' : `${m} min ago`;
};

/** /status and /approvals: what waits, the one on screen first. */
export function pendingStatusLines(pending: readonly PendingLine[], now: number, withIds: boolean): string[] {
  if (pending.length === 0) return withIds ? ['Nothing is waiting for an answer.'] : [];
  const line = (i: PendingLine) => {
    const what =
      i.type === 'approval'
        ? shortApproval(i, 80)
        : `${agentLine(i.asker, 30)} asks: ${agentLine(i.text, 80)}`;
    const state = i.shownAt !== undefined ? `asked ${ago(now - i.shownAt)}` : 'waiting its turn';
    return `${withIds ? `${i.id}: ` : ''}${what} (${state})`;
  };
  return [`Waiting for an answer (${pending.length}):`, ...pending.map(line)];
}

/** Told to the chat when nobody answered in time. */
export function timeoutNotice(i: Pick<PendingLine, 'type' | 'asker' | 'text'>, waitedMs: number): string {
  const waited = waitLength(waitedMs);
  return i.type === 'approval'
    ? `No answer in ${waited}: denied. (${shortApproval(i, 80)})`
    : `No answer in ${waited}: ${agentLine(i.asker, 30)} goes on without one.`;
}

/**
 * How long a wait was, for the chat (`short`: "10 min", "9 s") or the agent (`long`). The timeouts
 * are minutes in config but may be fractions: a wait under a minute is said in seconds, not "0 min".
 */
export function waitLength(ms: number, style: 'short' | 'long' = 'short'): string {
  const s = Math.max(1, Math.round(ms / 1000));
  const [n, unit] = s < 60 ? [s, 'second'] : [Math.round(s / 60), 'minute'];
  if (style === 'short') return `${n} ${unit === 'second' ? 's' : 'min'}`;
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}

/** Told to the chat at start for what a previous relay left waiting. */
export function restartNotice(i: Pick<PendingLine, 'type' | 'asker' | 'text'>): string {
  return i.type === 'approval'
    ? `The relay restarted: ${shortApproval(i, 80)}: denied.`
    : `The relay restarted: ${agentLine(i.asker, 30)}'s question "${agentLine(i.text, 80)}" was closed without an answer.`;
}
