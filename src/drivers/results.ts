// Error results of a warm turn, in the cold runner's words: short and true for the chat, with the
// agent's own text only in `detail` (masked), and a fault named there for the logs.
import { classifyError, errorMessageFor, shortDetail } from '../agents/common.js';
import type { AgentErrorKind, AgentResult } from '../agents/types.js';
import type { Settled } from './trouble.js';
import type { DriverFault, DriverState } from './types.js';

export type ErrorResult = Extract<AgentResult, { type: 'error' }>;

export function errorText(name: string, kind: AgentErrorKind, exit?: Partial<Exit>): string {
  // Two kinds mean something else for a live process: our own deadline, and a broken protocol.
  switch (kind) {
    case 'timeout':
      return `${name} took too long and was stopped.`;
    case 'unparseable':
      return `${name} stopped speaking its protocol; it will be restarted for the next message.`;
    default:
      return errorMessageFor(name, kind, exit);
  }
}

interface Exit {
  exitCode: number | null;
  signal: string | null;
}

/**
 * Pure: what a driver reports of itself, in order of precedence: closed, broken by its fault, busy
 * with a turn in `busy` (its session), idle on `session` (or none open yet).
 */
export function driverState(s: {
  closed: boolean;
  fault?: DriverFault | undefined;
  busy?: string | undefined;
  session?: string | undefined;
}): DriverState {
  if (s.closed) return { type: 'closed' };
  if (s.fault) return { type: 'broken', fault: s.fault };
  if (s.busy !== undefined) return { type: 'busy', sessionId: s.busy };
  return s.session ? { type: 'idle', sessionId: s.session } : { type: 'idle' };
}

/**
 * Pure: why a driver cannot start a turn now (closed or broken, a turn running, no session open,
 * stopped before it began), or undefined when it can. Every warm driver asks this first.
 */
export function turnRefusal(
  name: string,
  s: {
    closed: boolean;
    fault: DriverFault | undefined;
    busy: boolean;
    /** The open session, and whether the process's connection is there to run it on. */
    sessionId: string | undefined;
    connected: boolean;
    aborted: boolean | undefined;
  },
  startedAt: number,
): ErrorResult | undefined {
  if (s.closed || s.fault) return unusableResult(name, s.fault, startedAt);
  if (s.busy) return errorResult(name, 'exit', startedAt, { detail: 'busy' });
  if (!s.sessionId || !s.connected)
    return errorResult(name, 'exit', startedAt, { detail: 'no session is open' });
  if (s.aborted) return errorResult(name, 'aborted', startedAt, { sessionId: s.sessionId });
  return undefined;
}

/** A turn or open asked of a driver that is closed, or broken by `fault`. */
export function unusableResult(name: string, fault: DriverFault | undefined, startedAt: number): ErrorResult {
  return errorResult(name, fault ? faultKind(fault) : 'exit', startedAt, {
    detail: fault ? faultDetail(fault) : 'closed',
  });
}

export function errorResult(
  name: string,
  kind: AgentErrorKind,
  startedAt: number,
  extra: { detail?: string; sessionId?: string; exitCode?: number | null; signal?: string | null } = {},
): ErrorResult {
  const detail = extra.detail ? shortDetail(extra.detail) : '';
  return {
    type: 'error',
    kind,
    message: errorText(name, kind, extra),
    ...(detail ? { detail } : {}),
    ...(extra.sessionId ? { sessionId: extra.sessionId } : {}),
    ...(extra.exitCode !== undefined ? { exitCode: extra.exitCode } : {}),
    ...(extra.signal !== undefined ? { signal: extra.signal } : {}),
    durationMs: Math.round(performance.now() - startedAt),
  };
}

/** The error kind a fault means for the turn it broke. */
export function faultKind(fault: DriverFault): AgentErrorKind {
  switch (fault.type) {
    case 'exited':
    case 'start_failed':
    case 'stale':
      return 'exit';
    case 'unresponsive':
      return 'timeout';
    case 'garbage':
    case 'unknown_response':
    case 'duplicate_response':
    case 'too_large':
      return 'unparseable';
  }
}

/** A fault in words for logs and `detail` (never message bodies: the agent's output is not quoted). */
export function faultDetail(fault: DriverFault): string {
  switch (fault.type) {
    case 'garbage':
      return `protocol error: ${fault.detail}`;
    case 'unknown_response':
      return `protocol error: a response to request ${fault.id}, which was never sent`;
    case 'duplicate_response':
      return `protocol error: a second response to request ${fault.id}`;
    case 'too_large':
      return `protocol error: a message over ${fault.bytes} bytes`;
    case 'exited':
      return fault.signal
        ? `the process was killed (${fault.signal})`
        : `the process exited (${fault.exitCode})`;
    case 'unresponsive':
      return `no answer to ${fault.what}`;
    case 'start_failed':
    case 'stale':
      return fault.detail;
  }
}

/** The kind of an error response from the agent: its text says what it was, else a plain failure. */
export function rejectionKind(text: string, fallback: AgentErrorKind = 'exit'): AgentErrorKind {
  return classifyError(text) ?? fallback;
}

/** A request that got no value: timed out, broken by a fault, or refused by the agent. */
export type Failed = Exclude<Settled<unknown>, { type: 'value' }>;

/** How a failed request is told: what it was, the kind a refusal has unless its words say more. */
export interface FailureContext {
  t0: number;
  what: string;
  rejectedKind: AgentErrorKind;
  /** The process's last stderr lines: the reason an exit gives, where it gave one. */
  stderr: string;
  /** The words of the agent's error answer (its message and data), for telling its kind. */
  rejectionText: (error: unknown) => string;
  /** A turn we stopped that then had to be killed still ends as the stop the user asked for. */
  stopped?: 'timeout' | 'aborted' | undefined;
}

/** The error result of a request that got no value (both protocols' hosts and sessions). */
export function failureResult(name: string, r: Failed, c: FailureContext): ErrorResult {
  if (r.type === 'timeout') {
    return errorResult(name, 'timeout', c.t0, { detail: `no answer to ${c.what}` });
  }
  if (r.type === 'fault') {
    const f = r.fault;
    const exit = f.type === 'exited' ? { exitCode: f.exitCode, signal: f.signal } : {};
    const detail = f.type === 'exited' && c.stderr.trim() ? c.stderr : faultDetail(f);
    return errorResult(name, c.stopped ?? faultKind(f), c.t0, { detail, ...exit });
  }
  const kind = c.stopped ?? rejectionKind(c.rejectionText(r.error), c.rejectedKind);
  return errorResult(name, kind, c.t0, { detail: (r.error as { message?: string }).message ?? 'error' });
}
