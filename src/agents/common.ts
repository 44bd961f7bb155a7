// Shared pieces of the five parsers: tolerant JSON lines, error classification, user-fit messages,
// and turning a run's assistant messages into the `ok` result (reply, progress, media).
import { maskCredentials, scrub } from '../log.js';
import { extractMedia, mergeMedia } from '../media/parse.js';
import type { AgentErrorKind, AgentResult, AgentSpec, SessionRef, StreamEvent, Usage } from './types.js';

export type Parsed =
  | Omit<Extract<AgentResult, { type: 'ok' }>, 'durationMs'>
  | Omit<Extract<AgentResult, { type: 'error' }>, 'durationMs'>;

export type Json = Record<string, unknown>;

/** One line as a JSON object, or undefined for warnings, garbage and half-written lines. */
export function jsonLine(line: string): Json | undefined {
  const t = line.trim();
  if (!t.startsWith('{') || !t.endsWith('}')) return undefined;
  try {
    const v: unknown = JSON.parse(t);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
  } catch {
    return undefined;
  }
}

export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const num = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) ? v : undefined;
export const obj = (v: unknown): Json | undefined =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** What an error text (and an HTTP status, when the CLI reports one) means for the user. */
export function classifyError(text: string, status?: number): AgentErrorKind | undefined {
  const t = text.toLowerCase();
  if (
    /no conversation found|session not found|no session found|no rollout found|invalid session identifier|no previous sessions found/.test(
      t,
    )
  )
    return 'session_not_found';
  // The CLI's own request to its model provider timed out (claude: `Request timed out…`, after
  // API_TIMEOUT_MS). Our own run timeout never gets here: the runner reports that itself.
  if (/\brequest timed out\b|\bdeadline exceeded\b|\betimedout\b|idle timeout waiting for sse/.test(t))
    return 'timeout';
  if (status === 401 || status === 403) return 'auth';
  if (status === 429) return 'rate_limit';
  if (status !== undefined && (status === 529 || (status >= 500 && status <= 504))) return 'overloaded';
  if (
    /\b40[13]\b|unauthori[sz]ed|unauthenticated|invalid api key|incorrect api key|api key not valid|api_key_invalid|invalid x-api-key|authentication|not logged in|please (run )?\/?login|invalid auth method|permission_denied|forbidden/.test(
      t,
    )
  )
    return 'auth';
  if (/\b429\b|rate.?limit|too many requests|quota|resource.?exhausted/.test(t)) return 'rate_limit';
  if (
    /\b5(00|02|03|04|29)\b|overloaded|high demand|internal server error|internal error|service unavailable|server.?error|temporarily unavailable/.test(
      t,
    )
  )
    return 'overloaded';
  return undefined;
}

/**
 * A short, true message for the chat, naming the agent as a person knows it (a spec's displayName,
 * or a configured ACP agent's name). CLI output never goes here (it goes to `detail`).
 */
export function errorMessageFor(
  name: string,
  kind: AgentErrorKind,
  exit?: { exitCode?: number | null; signal?: string | null },
): string {
  switch (kind) {
    case 'auth':
      return `${name} could not sign in to its model provider. Check its login or API key on the host.`;
    case 'rate_limit':
      return `${name} hit its provider's rate limit or quota. Try again in a little while.`;
    case 'overloaded':
      return `${name}'s model provider is failing or overloaded right now. Try again shortly.`;
    case 'session_not_found':
      return `${name} could not find this chat's previous session; the next message starts a new one.`;
    case 'not_installed':
      return `${name} is not installed on the host.`;
    case 'timeout':
      // Only parsers produce this kind from a CLI's own words; the runner's timeout has its own text.
      return `${name}'s model provider did not answer in time. Try again shortly.`;
    case 'aborted':
      return `${name} was stopped.`;
    case 'unparseable':
      return `${name} finished without a reply agentwire could read.`;
    case 'sandbox':
      return `${name} could not start inside its bwrap sandbox, so it did not run; the relay log says why.`;
    case 'exit':
      if (exit?.signal) return `${name} stopped unexpectedly (${exit.signal}).`;
      return exit?.exitCode != null ? `${name} failed (exit code ${exit.exitCode}).` : `${name} failed.`;
  }
}

/** The CLI has no login or key at all on this machine: what to run there (`codex login`). */
export function notSignedInMessage(name: string, how: string): string {
  return `${name} is not signed in on this machine: ${how} there, then send your message again.`;
}

/** First meaningful line, cut short, with registered secrets and key-like tokens masked. */
export function shortDetail(text: string): string {
  const line =
    text
      .split('\n')
      .map((l) => l.replace(/\x1b\[[0-9;]*m/g, '').trim())
      .find((l) => l && !/^warning\b/i.test(l)) ?? '';
  const masked = scrub(line).replace(
    /\b(sk|pk|rk|key|tok|ghp|xox[a-z])[-_][A-Za-z0-9_-]{6,}/gi,
    '[redacted]',
  );
  return masked.length > 200 ? `${masked.slice(0, 197)}…` : masked;
}

/** `name` is the agent's display name (AgentSpec.displayName). */
export function errorResult(
  name: string,
  kind: AgentErrorKind,
  extra: {
    detail?: string;
    sessionId?: string | undefined;
    exitCode: number | null;
    signal: string | null;
    /** Said instead of the kind's usual sentence, when the CLI said more precisely what is wrong. */
    message?: string;
  },
): Parsed {
  const detail = extra.detail ? shortDetail(extra.detail) : '';
  return {
    type: 'error',
    kind,
    message: extra.message ?? errorMessageFor(name, kind, extra),
    ...(detail ? { detail } : {}),
    ...(extra.sessionId ? { sessionId: extra.sessionId } : {}),
    exitCode: extra.exitCode,
    signal: extra.signal,
  };
}

/**
 * The final assistant message is the reply; earlier ones become progress; media from all. A key the
 * agent quotes (it has them in its environment) is masked first, so neither the reply nor an
 * attachment reference, nor a refusal notice naming it, can carry it to a chat.
 */
export function okResult(
  messages: readonly string[],
  extra: { sessionId?: string | undefined; usage?: Usage | undefined; truncated: boolean },
): Parsed {
  const parts = messages.map((m) => extractMedia(maskCredentials(m)));
  const last = parts[parts.length - 1];
  return {
    type: 'ok',
    text: last?.text ?? '',
    progress: parts
      .slice(0, -1)
      .map((p) => p.text)
      .filter((t) => t !== ''),
    media: mergeMedia(parts.map((p) => p.media)),
    ...(extra.sessionId ? { sessionId: extra.sessionId } : {}),
    ...(extra.usage && Object.keys(extra.usage).length > 0 ? { usage: extra.usage } : {}),
    truncated: extra.truncated,
  };
}

export function usageOf(input?: number, output?: number, costUsd?: number): Usage | undefined {
  const u: Usage = {};
  if (input !== undefined) u.inputTokens = input;
  if (output !== undefined) u.outputTokens = output;
  if (costUsd !== undefined) u.costUsd = costUsd;
  return Object.keys(u).length ? u : undefined;
}

/** A session id the CLI can never read as a flag or a path trick. */
export function assertSafeId(id: string, what: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9_.:-]*$/.test(id)) throw new Error(`invalid ${what}: ${JSON.stringify(id)}`);
  return id;
}

/** A model name or level from config or a chat command: never a flag, never multi-line. */
export function safeArg(value: string, what: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._:/@+=-]*$/.test(value))
    throw new Error(`invalid ${what}: ${JSON.stringify(value)}`);
  return value;
}

/**
 * The session arguments a spec's `session` flags give for one run: the resume flag and the id, or
 * the new-session flag and the id the relay chose; none when the CLI has no such flag or picks the
 * id itself. The id is checked like any id that reaches argv.
 */
export function sessionArgs(flags: AgentSpec['session'], session: SessionRef): string[] {
  const flag = session.type === 'resume' ? flags.resumeFlag : session.id ? flags.newFlag : undefined;
  return flag && session.id ? [flag, assertSafeId(session.id, 'session id')] : [];
}

export const message = (text: string): StreamEvent[] => (text.trim() ? [{ type: 'message', text }] : NONE);
/** Shared results: a reducer returns these for most lines, without an allocation each. */
export const NONE: StreamEvent[] = [];
export const CONTINUED: StreamEvent[] = [{ type: 'continued' }];

/** The message texts of stream events. */
export function textsOf(events: readonly StreamEvent[]): string[] {
  return events.flatMap((e) => (e.type === 'message' ? [e.text] : []));
}

/** Adds the message texts of stream events to `into` (parse's loop, without an array per line). */
export function addTexts(into: string[], events: readonly StreamEvent[]): void {
  for (const e of events) if (e.type === 'message') into.push(e.text);
}

/**
 * A run's message reducer in two halves. `event` steps over one line's JSON; `line` steps over a
 * line of stdout, parsing it only when it can change something (see wordsTest). messageStream
 * hands out `line`; `parse`, which reads each line's JSON for itself anyway, feeds `event`.
 */
export interface Reducer {
  line(line: string): StreamEvent[];
  event(ev: Json): StreamEvent[];
}
