// An ACP turn as the driver (./acp.ts) tracks it, and how its `session/prompt` answer becomes an
// AgentResult: pure, apart from the driver, which holds the session.
import type { PromptResponse, SessionUpdate } from '@agentclientprotocol/sdk';
import { okResult } from '../agents/common.js';
import type { AgentResult, StreamEvent } from '../agents/types.js';
import type { UpdateReducer } from './acp-updates.js';
import type { Asking } from './approval.js';
import { type ErrorResult, errorResult } from './results.js';
import type { Settled } from './trouble.js';

export interface Turn {
  sessionId: string;
  reducer: UpdateReducer;
  events: (events: StreamEvent[]) => void;
  /** The turn's progress events (drivers/progress-map.ts), masked and sent to its `onEvent`. */
  progress: (update: SessionUpdate) => void;
  stop: (why: 'timeout' | 'aborted') => void;
  done: Promise<AgentResult>;
  /** Who answers this turn's permission requests; aborted by the stop, so a waiting one is cancelled. */
  asking: Asking & { abort(): void };
  /** Updates that show the model at work (text, thought, tool call, plan) during this turn. */
  activity: number;
}

/** The updates that show the model answering; a usage or mode update does not. */
export const ACTIVITY = new Set([
  'agent_message_chunk',
  'agent_thought_chunk',
  'tool_call',
  'tool_call_update',
  'plan',
]);

/**
 * claude-agent-acp answers the first prompt after a cancel with an instant, empty end_turn: the
 * cancelled run's own end, read late from a stream that still holds this prompt's real answer, so
 * every later reply would come one message late. Sending the prompt again would only move the lag
 * one message on (the copy is answered too, and read by the next prompt). So an empty end right
 * after a stop, with no sign of the model at work, breaks the session: the pool resumes it in a
 * fresh `session/load` (a new run of the agent's own stream) and runs the message again, once.
 */
export function isStaleEnd(
  afterCancel: boolean,
  stopped: 'timeout' | 'aborted' | undefined,
  activity: number,
  r: Settled<PromptResponse>,
): boolean {
  return afterCancel && !stopped && activity === 0 && r.type === 'value' && r.value.stopReason === 'end_turn';
}

/**
 * A turn whose prompt was answered: a reply, or the stop the user asked for. `failure` tells a
 * prompt that got no answer.
 */
export function promptResult(
  name: string,
  r: Settled<PromptResponse>,
  c: { sessionId: string; messages: string[]; stopped: 'timeout' | 'aborted' | undefined; t0: number },
  failure: (r: Exclude<Settled<PromptResponse>, { type: 'value' }>) => ErrorResult,
): AgentResult {
  const { sessionId, messages, stopped, t0 } = c;
  if (r.type === 'value' && !stopped && r.value.stopReason !== 'cancelled') {
    // A turn that ended normally is a reply even when empty (a turn of tool calls only), as the
    // cold parsers treat a finished run; other stop reasons without text say nothing true.
    return messages.length || r.value.stopReason === 'end_turn'
      ? {
          ...okResult(messages, { sessionId, truncated: false }),
          durationMs: Math.round(performance.now() - t0),
        }
      : errorResult(name, 'unparseable', t0, {
          sessionId,
          detail: `the turn ended (${r.value.stopReason}) without a reply`,
        });
  }
  if (r.type === 'value' || (stopped && r.type === 'rejected')) {
    // Stopped in time: the process and the session stay for the next turn.
    return errorResult(name, stopped ?? 'aborted', t0, { sessionId });
  }
  return { ...failure(r), sessionId };
}
