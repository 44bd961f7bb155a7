// The stdio transport under the claude stream-json driver: NDJSON both ways (framed by
// core/ndjson.ts), with the checks a relay needs. A line that is not a JSON object, a message over the size cap, and a
// `control_response` to a request never sent (or answered already) each mean the process is no
// longer speaking the protocol: a fault, after which nothing more is delivered.
import type { Readable, Writable } from 'node:stream';
import { frameLines } from '../core/ndjson.js';
import { firstFault, type Json, MAX_RECORD_BYTES, Pending, readMessage } from './records.js';
import type { DriverFault } from './types.js';

export type { Json };

/** Sees every message both ways (captures, debugging); a line that is not JSON comes as a string. */
export type Tap = (direction: 'in' | 'out', message: unknown) => void;

export interface TransportEvents {
  /** Any message but a control_response (those go to `onResponse`). `line` is its raw text. */
  onMessage(msg: Json, line: string): void;
  /** The answer to a request we sent with `request`. */
  onResponse(requestId: string, response: Json): void;
  onFault(fault: DriverFault): void;
  /** stdout ended (the process closed it or exited): every line before it was delivered. */
  onEnd(): void;
}

export interface ClaudeTransport {
  /** Sends one message. */
  send(msg: Json): void;
  /** Sends a control request under `requestId`; its control_response is now expected once. */
  request(requestId: string, request: Json): void;
}

export function claudeTransport(
  input: Readable,
  output: Writable,
  events: TransportEvents,
  maxMessageBytes = MAX_RECORD_BYTES,
  tap?: Tap,
): ClaudeTransport {
  const pending = new Pending();
  const { fault, faulted } = firstFault((f) => events.onFault(f));

  const line = (record: string) => {
    if (faulted()) return;
    const r = readMessage(record, fault, tap);
    if (!r) return;
    const m = r.msg;
    if (m.type === 'control_response') {
      const response = m.response as Json | undefined;
      const id = response && typeof response === 'object' ? response.request_id : undefined;
      if (typeof id !== 'string') {
        fault({ type: 'garbage', detail: 'a control_response without a request_id' });
        return;
      }
      const answer = pending.answer(id);
      if (answer !== 'ok') return fault(answer);
      events.onResponse(id, response as Json);
      return;
    }
    events.onMessage(m, r.text);
  };

  frameLines(input, {
    maxLineBytes: maxMessageBytes,
    onLine: line,
    onTooLarge: (bytes) => fault({ type: 'too_large', bytes }),
    onEnd: () => events.onEnd(),
  });

  const send = (msg: Json) => {
    tap?.('out', msg);
    // A dead child fails the write (EPIPE); its exit is what reports that.
    output.write(`${JSON.stringify(msg)}\n`);
  };
  return {
    send,
    request(requestId, request) {
      pending.sent(requestId);
      send({ type: 'control_request', request_id: requestId, request });
    },
  };
}
