// A codex turn as the driver tracks it, and how a turn or a request ends as an AgentResult: pure,
// apart from the driver (codex.ts), which holds the process.
import { classifyError, okResult, usageOf } from '../agents/common.js';
import type { AgentResult, StreamEvent } from '../agents/types.js';
import type { Asking } from './approval.js';
import type { Turn as CodexTurn, ServerNotification } from './codex-protocol.js';
import { RpcError } from './codex-rpc.js';
import { type ErrorResult, errorResult, faultDetail, faultKind, rejectionKind } from './results.js';
import type { Settled } from './trouble.js';

export interface Turn {
  threadId: string;
  /** Known once `turn/start` answers; notifications of other turns are ignored. */
  turnId?: string;
  events: (events: StreamEvent[]) => void;
  /** The turn's progress events (drivers/progress-map.ts), masked and sent to its `onEvent`. */
  progress: (n: ServerNotification) => void;
  usage: { input: number; output: number; seen: boolean };
  /** Texts steered in, until codex shows them as a user message of this turn. */
  unseenSteers: string[];
  /** Steers given before the turn's id was known; sent when it is. */
  queuedSteers: string[];
  stopped?: 'timeout' | 'aborted';
  stop: (why: 'timeout' | 'aborted') => void;
  completed: (turn: CodexTurn) => void;
  /** Turns of this thread that ended before `turn/start` answered (checked once the id is known). */
  endedEarly: Map<string, CodexTurn>;
  done: Promise<AgentResult>;
  /** Who answers this turn's approvals; aborted by the stop, so a waiting one is cancelled. */
  asking: Asking & { abort(): void };
  /** The paths of each file-change item seen starting, for the question about it. */
  files: Map<string, string[]>;
}

/** How a turn ended: its reply, the stop the user asked for, or codex's error. */
export function turnResult(
  name: string,
  r: Settled<CodexTurn>,
  turn: Turn,
  messages: string[],
  t0: number,
  failure: (r: Exclude<Settled<CodexTurn>, { type: 'value' }>) => ErrorResult,
): AgentResult {
  const sessionId = turn.threadId;
  if (r.type !== 'value') {
    // A turn codex refused to start (or a stop that had to kill) keeps the user's stop reason.
    return { ...failure(r), sessionId };
  }
  const t = r.value;
  if (turn.stopped || t.status === 'interrupted') {
    return errorResult(name, turn.stopped ?? 'aborted', t0, { sessionId });
  }
  if (t.status === 'failed') {
    const text = [t.error?.message, t.error?.additionalDetails].filter(Boolean).join(' ');
    return errorResult(name, classifyError(text) ?? 'exit', t0, {
      sessionId,
      detail: text || 'the turn failed',
    });
  }
  const usage = turn.usage.seen ? usageOf(turn.usage.input, turn.usage.output) : undefined;
  return {
    ...okResult(messages, { sessionId, usage, truncated: false }),
    durationMs: ms(t0),
  };
}

/** The error result for a request that got no value: timed out, a fault, or refused. */
export function failureResult(
  name: string,
  stderr: string,
  r: Exclude<Settled<unknown>, { type: 'value' }>,
  t0: number,
  what: string,
  rejectedKind: ErrorResult['kind'],
  stopped?: 'timeout' | 'aborted',
): ErrorResult {
  if (r.type === 'timeout') {
    return errorResult(name, 'timeout', t0, { detail: `no answer to ${what}` });
  }
  if (r.type === 'fault') {
    const f = r.fault;
    const exit = f.type === 'exited' ? { exitCode: f.exitCode, signal: f.signal } : {};
    const detail = f.type === 'exited' && stderr.trim() ? stderr : faultDetail(f);
    return errorResult(name, stopped ?? faultKind(f), t0, { detail, ...exit });
  }
  const e = r.error as Error;
  const data = e instanceof RpcError && e.data !== undefined ? JSON.stringify(e.data) : '';
  return errorResult(name, stopped ?? rejectionKind(`${e.message} ${data}`, rejectedKind), t0, {
    detail: e.message,
  });
}

const ms = (t0: number) => Math.round(performance.now() - t0);
