// A codex thread's settings and a turn as the driver tracks it, and how a turn ends as an
// AgentResult: pure, apart from the driver (codex.ts), which holds the session.
import { classifyError, okResult, usageOf } from '../agents/common.js';
import type { AgentResult, StreamEvent } from '../agents/types.js';
import type { Asking } from './approval.js';
import { approvalPolicy } from './codex-permission.js';
import type { Turn as CodexTurn, ServerNotification } from './codex-protocol.js';
import { type ErrorResult, errorResult } from './results.js';
import type { Settled } from './trouble.js';
import type { PermissionPolicy } from './types.js';

/** What a thread is opened with, as the cold spec's flags say it; see CodexDriverOptions. */
export interface ThreadOptions {
  process: { cwd: string };
  permission: PermissionPolicy;
  model?: string;
  thinking?: string;
  systemText?: string;
  threadConfig?: Record<string, string | number | boolean | string[] | object>;
  sandbox?: 'read-only';
}

/** The settings of `thread/start` and `thread/resume`. */
export function threadSettings(o: ThreadOptions) {
  return {
    cwd: o.process.cwd,
    approvalPolicy: approvalPolicy(o.permission),
    ...(o.model ? { model: o.model } : {}),
    ...(o.thinking || o.threadConfig
      ? {
          config: {
            ...o.threadConfig,
            ...(o.thinking ? { model_reasoning_effort: o.thinking } : {}),
          },
        }
      : {}),
    ...(o.systemText ? { developerInstructions: o.systemText } : {}),
    ...(o.sandbox ? { sandbox: o.sandbox } : {}),
  };
}

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

const ms = (t0: number) => Math.round(performance.now() - t0);
