// The stdio transport under the ACP library: NDJSON both ways, plus the checks the library does
// not make. On bad input the library answers a parse error and carries on, and drops a response
// to a request it never sent with a console line; for a relay either means the process is not
// speaking the protocol any more, so each becomes a fault and nothing after it is delivered. A
// misfit we know to be harmless (harmlessMisfit) is dropped instead, so it prints nothing.
import type { Readable, Writable } from 'node:stream';
import type { AnyMessage, Stream } from '@agentclientprotocol/sdk';
import { frameLines } from '../core/ndjson.js';
import { firstFault, MAX_RECORD_BYTES, Pending, readMessage } from './records.js';
import type { DriverFault } from './types.js';

/** Sees every message both ways (captures, debugging); a line that is not JSON comes as a string. */
export type Tap = (direction: 'in' | 'out', message: unknown) => void;

export interface MonitoredStream {
  stream: Stream;
  /** Requests we sent that are not answered yet (for tests and diagnostics). */
  outstanding(): number;
}

export function monitoredStream(
  input: Readable,
  output: Writable,
  onFault: (fault: DriverFault) => void,
  maxMessageBytes = MAX_RECORD_BYTES,
  tap?: Tap,
  onDropped?: (what: string) => void,
): MonitoredStream {
  const pending = new Pending();
  const { fault, faulted } = firstFault(onFault);
  // Set once the library cancelled its reader (its connection closed): the child may still write,
  // and enqueueing into a cancelled stream throws inside a 'data' handler, i.e. crashes the relay.
  let readerGone = false;

  const readable = new ReadableStream<AnyMessage>({
    start(controller) {
      const line = (record: string) => {
        if (faulted() || readerGone) return;
        const r = readMessage(record, fault, tap);
        if (!r) return;
        const m = r.msg;
        const harmless = harmlessMisfit(m);
        if (harmless) {
          onDropped?.(harmless);
          return;
        }
        if (!('method' in m) && 'id' in m) {
          const answer = pending.answer(idKey(m.id), String(m.id));
          if (answer !== 'ok') return fault(answer);
        }
        controller.enqueue(m as AnyMessage);
      };
      // JSON-RPC over stdio splits records on LF only: U+2028 inside a string is not a break.
      frameLines(input, {
        maxLineBytes: maxMessageBytes,
        onLine: line,
        onTooLarge: (bytes) => fault({ type: 'too_large', bytes }),
        onEnd: () => {
          if (!readerGone) controller.close();
          readerGone = true;
        },
      });
    },
    cancel() {
      readerGone = true;
    },
  });

  const writable = new WritableStream<AnyMessage>({
    write(msg) {
      tap?.('out', msg);
      const m = msg as Record<string, unknown>;
      if ('method' in m && 'id' in m) pending.sent(idKey(m.id));
      return new Promise<void>((resolve) => {
        // A dead child fails the write (EPIPE); its exit is what reports that, not this promise.
        output.write(`${JSON.stringify(msg)}\n`, () => resolve());
      });
    },
  });

  return { stream: { readable, writable }, outstanding: () => pending.size() };
}

function idKey(id: unknown): string {
  return `${typeof id}:${String(id)}`;
}

/**
 * Pure: why a message the library would refuse is harmless to drop, or undefined. claude-agent-acp
 * sends `usage_update` with `"used": null` every turn; the library answers a notification that does
 * not fit its schema with an "Invalid params" line on stderr. We never read usage updates, so one
 * whose numbers are missing is dropped here (the driver logs it at debug) and nothing else changes.
 */
export function harmlessMisfit(m: Record<string, unknown>): string | undefined {
  if (m.method !== 'session/update' || 'id' in m) return undefined;
  const update = (m.params as { update?: Record<string, unknown> } | undefined)?.update;
  if (update?.sessionUpdate !== 'usage_update') return undefined;
  const count = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
  return count(update.used) && count(update.size) ? undefined : 'a usage_update without its numbers';
}
