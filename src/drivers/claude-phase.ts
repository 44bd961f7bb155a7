// What a claude turn (or the start-up) gathers from the CLI's stream, and how it ends: the lines
// the cold parser reads, a turn's result, and the result of a fault (the process died or stopped
// speaking the protocol). Apart from the driver (claude.ts), which holds the process.
import { claudeSpec } from '../agents/claude.js';
import type { Reducer } from '../agents/common.js';
import type { AgentResult } from '../agents/types.js';
import type { Asking } from './approval.js';
import type { Json } from './claude-transport.js';
import { type ErrorResult, errorResult, faultDetail, faultKind } from './results.js';
import type { DriverFault } from './types.js';

// Lines of one turn kept for the parser, as the cold runner caps stdout.
const MAX_TURN_BYTES = 10 * 1024 * 1024;

/** What is gathered while the process speaks outside our control_responses: a turn or the start-up. */
export interface Phase {
  lines: string[];
  bytes: number;
  truncated: boolean;
  /** A `result` line was seen: it says how the turn (or the start-up) ended. */
  result?: boolean;
  /** Set for a turn: the live reducer behind onProgress, and how the turn ends. */
  turn?: {
    sessionId: string;
    live: Reducer;
    add: (events: ReturnType<Reducer['event']>) => void;
    /** Each message of the turn, mapped onto progress events for the turn's `onEvent`. */
    progress: (msg: Json) => void;
    stopped: 'timeout' | 'aborted' | undefined;
    stop: (why: 'timeout' | 'aborted') => void;
    finish: (result: AgentResult) => void;
    done: Promise<AgentResult>;
    t0: number;
    /** Who answers this turn's `can_use_tool`; aborted by the stop, so a waiting one is cancelled. */
    asking: Asking & { abort(): void };
  };
}

/** Keeps what the cold parser reads of a line; a tool result's bulk is not among it. */
export function keepLine(phase: Phase, msg: Json, line: string): void {
  const kept =
    msg.type === 'assistant' || msg.type === 'result'
      ? line
      : JSON.stringify({
          type: msg.type,
          ...(typeof msg.session_id === 'string' ? { session_id: msg.session_id } : {}),
        });
  if (msg.type !== 'result' && phase.bytes + kept.length > MAX_TURN_BYTES) {
    phase.truncated = true;
    return;
  }
  phase.bytes += kept.length;
  phase.lines.push(kept);
  if (msg.type === 'result') phase.result = true;
}

export function turnResult(name: string, phase: Phase, turn: NonNullable<Phase['turn']>): AgentResult {
  const durationMs = Math.round(performance.now() - turn.t0);
  // Stopped in time: the process and the session stay for the next turn.
  if (turn.stopped) return errorResult(name, turn.stopped, turn.t0, { sessionId: turn.sessionId });
  const parsed = claudeSpec.parse({
    stdoutLines: phase.lines,
    stderr: '',
    exitCode: 0,
    signal: null,
    truncated: phase.truncated,
  });
  if (parsed.type === 'ok') return { ...parsed, sessionId: parsed.sessionId ?? turn.sessionId, durationMs };
  // The cold parser names the agent by its kind; the driver's name is the one the chat knows.
  return errorResult(name, parsed.kind, turn.t0, {
    sessionId: parsed.sessionId ?? turn.sessionId,
    ...(parsed.detail ? { detail: parsed.detail } : {}),
  });
}

export function faultResult(
  name: string,
  stderr: string,
  f: DriverFault,
  t0: number,
  phase: Phase | undefined,
  turn: Phase['turn'] | undefined,
): ErrorResult {
  const sessionId = turn?.sessionId;
  // A turn we stopped that then had to be killed still ends as the stop the user asked for.
  if (turn?.stopped) return errorResult(name, turn.stopped, t0, { ...(sessionId ? { sessionId } : {}) });
  const exit = f.type === 'exited' ? { exitCode: f.exitCode, signal: f.signal } : {};
  if (f.type === 'exited' && phase?.result) {
    // It said why before exiting (a missing session, an API error): the cold parser reads it.
    const parsed = claudeSpec.parse({
      stdoutLines: phase.lines,
      stderr,
      exitCode: f.exitCode,
      signal: f.signal,
      truncated: phase.truncated,
    });
    if (parsed.type === 'error') {
      return errorResult(name, parsed.kind, t0, {
        ...(parsed.detail ? { detail: parsed.detail } : {}),
        ...(sessionId ? { sessionId } : {}),
        ...exit,
      });
    }
  }
  const detail = f.type === 'exited' && stderr.trim() ? stderr : faultDetail(f);
  return errorResult(name, faultKind(f), t0, { detail, ...(sessionId ? { sessionId } : {}), ...exit });
}
