// From an agent result to the text a person reads. Pure. Errors become one short, true sentence;
// nothing raw (JSON, stderr, stack traces) reaches a chat, and a reply is never an empty message.
import type { AgentResult } from '../agents/types.js';
import { type ChunkRules, chunkText } from './chunk.js';
import { redactOutbound } from './outbound-redact.js';
import type { OutboundItem } from './types.js';

type AgentError = Extract<AgentResult, { type: 'error' }>;

/** More chunks than this is a flood, not a reply: the rest is cut with a notice saying so. */
export const MAX_REPLY_CHUNKS = 30;

export const NOTICE = {
  empty: 'The agent finished without a reply.',
  truncated: '(The reply was cut short: the agent printed more than the output limit.)',
  contextReset: '(Context was reset: the previous session could not be resumed, so this starts a fresh one.)',
  contextMoved: '(Context was reset: this chat moved to another machine, which does not have its session.)',
  crashedTwice:
    'Sorry, I could not answer your message: the relay stopped twice while working on it, so I gave up.',
  relayError: 'Something went wrong in the relay while answering; the error was logged.',
  dropping: 'Too many messages are waiting for the agent; new ones are being dropped until it catches up.',
} as const;

/** Why a message was not given to the agent at all: longer than queue.maxPromptChars. */
export function tooLongNotice(chars: number, max: number): string {
  const n = (v: number) => v.toLocaleString('en-US');
  return (
    `Your message was not given to the agent: it is ${n(chars)} characters and the limit is ` +
    `${n(max)}. Send the text as a file instead (the agent gets the file), or send a shorter message.`
  );
}

function fallback(r: AgentError, agent: string): string {
  switch (r.kind) {
    case 'not_installed':
      return `The agent (${agent}) is not installed or not on PATH.`;
    case 'auth':
      return `The agent (${agent}) is not logged in or its credentials were refused.`;
    case 'rate_limit':
      return 'The agent hit a rate limit; try again later.';
    case 'overloaded':
      return "The agent's service is overloaded; try again in a moment.";
    case 'timeout':
      return 'The agent timed out.';
    case 'aborted':
      return 'The run was stopped.';
    case 'session_not_found':
      return 'The agent could not resume its session.';
    case 'exit':
      if (r.signal) return `The agent (${agent}) was killed by ${r.signal}.`;
      return r.exitCode === undefined || r.exitCode === null
        ? `The agent (${agent}) stopped unexpectedly.`
        : `The agent (${agent}) exited with code ${r.exitCode}.`;
    case 'unparseable':
      return "The agent's output could not be read.";
    case 'sandbox':
      return `The agent (${agent}) could not start inside its bwrap sandbox, so it did not run.`;
  }
}

/** True for a message fit to show: one line, short, and nothing that looks like JSON or a trace. */
function presentable(message: string): boolean {
  const m = message.trim();
  return (
    m.length > 0 &&
    m.length <= 200 &&
    !m.includes('\n') &&
    !/^[[{]/.test(m) &&
    !/\bat [\w.<>]+ \(|node:internal|Traceback|\{"/.test(m)
  );
}

/**
 * The sentence a user sees for a failed run. The agent layer's message (which by contract never
 * quotes CLI output; that is in `detail`, for the log) wins when it looks presentable; anything
 * that looks like JSON, a trace or several lines is replaced, as a last line of defence.
 */
export function errorSentence(r: AgentError, agent: string): string {
  const m = r.message.trim();
  if (!presentable(m)) return fallback(r, agent);
  return /[.!?)]$/.test(m) ? m : `${m}.`;
}

/** The whole reply text for a finished run (before media), never empty. */
export function replyText(
  r: AgentResult,
  opts: { agent: string; hasMedia: boolean; contextReset: boolean; moved?: boolean },
): string {
  const parts: string[] = [];
  if (opts.contextReset) parts.push(opts.moved ? NOTICE.contextMoved : NOTICE.contextReset);
  if (r.type === 'error') parts.push(errorSentence(r, opts.agent));
  else {
    const text = r.text.trim();
    if (text) parts.push(text);
    else if (!opts.hasMedia && !r.truncated) parts.push(NOTICE.empty);
    if (r.truncated) parts.push(NOTICE.truncated);
  }
  return parts.join('\n\n');
}

/** Chunks `text` for a channel, capped at MAX_REPLY_CHUNKS with a closing notice when cut. */
export function replyChunks(
  text: string,
  rules: number | ChunkRules,
  maxChunks = MAX_REPLY_CHUNKS,
): string[] {
  const limit = typeof rules === 'number' ? rules : rules.limit;
  // Cut the input first so a flood costs time proportional to what is sent, not what was printed.
  // Masked before it is split: a credential cut across two chunks would pass the store's redaction
  // of each chunk (store/sqlite/outbox.ts) as two harmless-looking halves. The cut keeps a margin longer
  // than any credential, so one that straddles `room` is masked whole before the second cut.
  const room = limit * (maxChunks + 1);
  const masked = redactOutbound(text.length > room ? text.slice(0, room + 512) : text);
  const chunks = chunkText(masked.length > room ? masked.slice(0, room) : masked, rules);
  if (chunks.length <= maxChunks) return chunks;
  const kept = chunks.slice(0, maxChunks - 1);
  const notice = `(Reply cut after ${kept.length} messages: the rest was too long to send here.)`;
  return [...kept, ...chunkText(notice, rules)];
}

/** A chat's text as the outbox items it is sent in: the one way text reaches the outbox. */
export function textItems(text: string, rules: ChunkRules): OutboundItem[] {
  return replyChunks(text, rules).map((t) => ({ type: 'text', text: t }));
}
