// The stdio transport under the claude stream-json driver: NDJSON both ways, split on LF only, with
// the checks a relay needs. A line that is not a JSON object, a message over the size cap, and a
// `control_response` to a request never sent (or answered already) each mean the process is no
// longer speaking the protocol: a fault, after which nothing more is delivered.
import type { Readable, Writable } from 'node:stream';
import type { DriverFault } from './types.js';

export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
// Ids of answered requests remembered to tell a duplicate from a stranger; both are faults.
const ANSWERED_MEMORY = 256;

export type Json = Record<string, unknown>;

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
  maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES,
  tap?: Tap,
): ClaudeTransport {
  const outstanding = new Set<string>();
  const answered: string[] = [];
  let faulted = false;
  const fault = (f: DriverFault) => {
    if (faulted) return;
    faulted = true;
    events.onFault(f);
  };

  const line = (bytes: Buffer) => {
    if (faulted) return;
    // U+2028 inside a JSON string is not a record break (Node's readline would split there).
    const text = bytes.toString('utf8').trim();
    if (!text) return;
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      tap?.('in', text);
      fault({ type: 'garbage', detail: 'a line that is not JSON' });
      return;
    }
    if (!msg || typeof msg !== 'object' || Array.isArray(msg)) {
      fault({ type: 'garbage', detail: 'a JSON value that is not a message' });
      return;
    }
    tap?.('in', msg);
    const m = msg as Json;
    if (m.type === 'control_response') {
      const response = m.response as Json | undefined;
      const id = response && typeof response === 'object' ? response.request_id : undefined;
      if (typeof id !== 'string') {
        fault({ type: 'garbage', detail: 'a control_response without a request_id' });
        return;
      }
      if (!outstanding.delete(id)) {
        fault(answered.includes(id) ? { type: 'duplicate_response', id } : { type: 'unknown_response', id });
        return;
      }
      answered.push(id);
      if (answered.length > ANSWERED_MEMORY) answered.shift();
      events.onResponse(id, response as Json);
      return;
    }
    events.onMessage(m, text);
  };

  let parts: Buffer[] = [];
  let size = 0;
  input.on('data', (chunk: Buffer) => {
    let start = 0;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, start)) {
      parts.push(chunk.subarray(start, i));
      line(parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts));
      parts = [];
      size = 0;
      start = i + 1;
    }
    if (start < chunk.length) {
      parts.push(chunk.subarray(start));
      size += chunk.length - start;
      if (size > maxMessageBytes) {
        fault({ type: 'too_large', bytes: size });
        parts = [];
        size = 0;
      }
    }
  });
  input.once('close', () => {
    if (parts.length) line(Buffer.concat(parts));
    parts = [];
    events.onEnd();
  });

  const send = (msg: Json) => {
    tap?.('out', msg);
    // A dead child fails the write (EPIPE); its exit is what reports that.
    output.write(`${JSON.stringify(msg)}\n`);
  };
  return {
    send,
    request(requestId, request) {
      outstanding.add(requestId);
      send({ type: 'control_request', request_id: requestId, request });
    },
  };
}
