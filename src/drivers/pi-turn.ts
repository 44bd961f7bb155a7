// What one pi turn gathers from its events and how it ends as an AgentResult: the assistant
// messages (through the cold reducer, so progress and reply are the cold runner's), the last one
// (its stop reason says how the run ended), and the token usage summed over the run's model calls.
// Pure apart from onProgress; the driver (pi.ts) holds the process and decides when a turn ends.
import { classifyError, num, obj, okResult, str, usageOf } from '../agents/common.js';
import { reducer as piReducer } from '../agents/pi.js';
import type { AgentResult } from '../agents/types.js';
import type { PiJson } from './pi-transport.js';
import { errorResult, faultDetail, faultKind } from './results.js';
import { turnMessages } from './turn-messages.js';
import type { DriverFault } from './types.js';

export interface PiTally {
  /** An assistant `message_end`: kept as a message, its usage added. */
  message(ev: PiJson): void;
  /** The last assistant message, if any. */
  last(): PiJson | undefined;
  /** The turn's result once its run ended (not stopped by us). */
  result(name: string, sessionId: string, t0: number): AgentResult;
}

export function piTally(onProgress?: (text: string) => void): PiTally {
  const gathered = turnMessages(onProgress);
  const reduce = piReducer();
  let last: PiJson | undefined;
  let input = 0;
  let output = 0;
  let cost = 0;
  return {
    message(ev) {
      const m = obj(ev.message);
      if (m?.role !== 'assistant') return;
      last = m;
      const u = obj(m.usage);
      input += num(u?.input) ?? 0;
      output += num(u?.output) ?? 0;
      cost += num(obj(u?.cost)?.total) ?? 0;
      gathered.add(reduce.event(ev));
    },
    last: () => last,
    result(name, sessionId, t0) {
      const usage = usageOf(input || undefined, output || undefined, cost || undefined);
      if (last && (last.stopReason === 'error' || last.stopReason === 'aborted')) {
        const text = str(last.errorMessage) ?? 'the model call failed';
        const kind = last.stopReason === 'aborted' ? 'aborted' : (classifyError(text) ?? 'exit');
        return errorResult(name, kind, t0, { sessionId, detail: text });
      }
      if (!last) {
        return errorResult(name, 'unparseable', t0, { sessionId, detail: 'the turn ended without a reply' });
      }
      return { ...okResult(gathered.messages, { sessionId, usage, truncated: false }), durationMs: ms(t0) };
    },
  };
}

/** A turn ended by a fault; one we stopped that then had to be killed ends as the stop asked for. */
export function piFaultResult(
  name: string,
  stderr: string,
  f: DriverFault,
  t0: number,
  sessionId: string,
  stopped: 'timeout' | 'aborted' | undefined,
): AgentResult {
  const exit = f.type === 'exited' ? { exitCode: f.exitCode, signal: f.signal } : {};
  const detail = f.type === 'exited' && stderr.trim() ? stderr : faultDetail(f);
  return errorResult(name, stopped ?? faultKind(f), t0, { sessionId, detail, ...exit });
}

/** A prompt an extension took without a run: done, with nothing to say (as ACP's empty end_turn). */
export function handledResult(sessionId: string, t0: number): AgentResult {
  return { ...okResult([], { sessionId, truncated: false }), durationMs: ms(t0) };
}

export const ms = (t0: number) => Math.round(performance.now() - t0);
