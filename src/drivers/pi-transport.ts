// The stdio transport of `pi --mode rpc`: one JSON object per line both ways, records split on LF
// only by core/ndjson.ts (pi's own client warns that Node's `readline` is not protocol-compliant).
// Commands carry our own ids and are answered by `{"type":"response","id",...}`; everything else
// is an event. A line that is not a JSON object, a response to nothing we asked, a second
// response, or one record over the size cap means the process no longer speaks the protocol: a
// fault, and nothing after it is delivered.
import type { Readable, Writable } from 'node:stream';
import { frameLines } from '../core/ndjson.js';
import { firstFault, garbage, MAX_RECORD_BYTES, Pending, recordOf } from './records.js';
import type { DriverFault } from './types.js';

export type PiJson = Record<string, unknown>;

/** A command's answer: pi says `success: false` with an `error` text when it refuses one. */
export type PiResponse = { success: true; data?: unknown } | { success: false; error: string };

/** Sees every record both ways (fixture captures, debugging); a line that is not JSON comes as a string. */
export type PiTap = (direction: 'in' | 'out', message: unknown) => void;

export interface PiTransport {
  /** Sends a command with a fresh id; `onResponse` gets its answer (once). */
  send(command: PiJson, onResponse?: (r: PiResponse) => void): void;
  /** Sends a record that is not a command (an `extension_ui_response`): nothing answers it. */
  reply(record: PiJson): void;
  /** Commands sent and not answered yet. */
  outstanding(): number;
}

export interface PiTransportOptions {
  input: Readable;
  output: Writable;
  onEvent: (event: PiJson) => void;
  onFault: (fault: DriverFault) => void;
  maxRecordBytes?: number;
  tap?: PiTap;
}

export function piTransport(opts: PiTransportOptions): PiTransport {
  const max = opts.maxRecordBytes ?? MAX_RECORD_BYTES;
  const waiting = new Map<string, ((r: PiResponse) => void) | undefined>();
  const pending = new Pending();
  let nextId = 1;
  const { fault, faulted } = firstFault((f) => opts.onFault(f));

  const record = (text: string) => {
    if (faulted()) return;
    const r = recordOf(text);
    if (r.type === 'blank') return;
    if (r.type === 'not_json') {
      opts.tap?.('in', text);
      return fault(garbage(r.type));
    }
    opts.tap?.('in', r.type === 'message' ? r.msg : r.value);
    if (r.type !== 'message' || typeof r.msg.type !== 'string')
      return fault(garbage('not_object', 'a pi record'));
    const m = r.msg;
    if (m.type !== 'response') {
      opts.onEvent(m);
      return;
    }
    // pi answers a line it could not parse, or a command it does not know, without an id.
    const id = typeof m.id === 'string' ? m.id : undefined;
    if (id === undefined) return fault({ type: 'unknown_response', id: String(m.command ?? 'none') });
    const answer = pending.answer(id);
    if (answer !== 'ok') return fault(answer);
    const done = waiting.get(id);
    waiting.delete(id);
    done?.(
      m.success === true
        ? { success: true, data: m.data }
        : { success: false, error: typeof m.error === 'string' ? m.error : 'refused' },
    );
  };

  frameLines(opts.input, {
    maxLineBytes: max,
    onLine: record,
    onTooLarge: (bytes) => fault({ type: 'too_large', bytes }),
    endOn: 'end',
  });

  const write = (msg: PiJson) => {
    opts.tap?.('out', msg);
    // A dead child fails the write (EPIPE); its exit is what reports that.
    opts.output.write(`${JSON.stringify(msg)}\n`);
  };

  return {
    send(command, onResponse) {
      const id = `aw-${nextId++}`;
      waiting.set(id, onResponse);
      pending.sent(id);
      write({ ...command, id });
    },
    reply: write,
    outstanding: () => waiting.size,
  };
}
