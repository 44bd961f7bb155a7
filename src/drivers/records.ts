// The checks every warm transport makes of what its process says, past the framing (core/ndjson.ts):
// a record must be a JSON object, and a response must answer a request that was sent and is still
// open. Either failure means the process no longer speaks the protocol (a fault). Answered ids are
// remembered a while to tell a second answer (a duplicate) from an answer to nothing (a stranger).
import type { DriverFault } from './types.js';

export type Json = Record<string, unknown>;

/** A record larger than this (16 MiB) is a fault: a process is never buffered without end. */
export const MAX_RECORD_BYTES = 16 * 1024 * 1024;

/**
 * A transport's faults as its owner hears them: the first one only, since after it nothing the
 * process says is read (`faulted()` is true from then on).
 */
export function firstFault(onFault: (fault: DriverFault) => void) {
  let faulted = false;
  return {
    faulted: () => faulted,
    fault: (f: DriverFault): void => {
      if (faulted) return;
      faulted = true;
      onFault(f);
    },
  };
}

// How many answered ids are remembered; an older one answered again counts as a stranger.
const ANSWERED_MEMORY = 256;

export type JsonRecord =
  | { type: 'blank' }
  /** `text`: the line without the white space around it. */
  | { type: 'message'; msg: Json; text: string }
  | { type: 'not_json'; text: string }
  | { type: 'not_object'; value: unknown };

/** Pure: one framed record as a message, or what is wrong with it. Blank lines are nothing. */
export function recordOf(line: string): JsonRecord {
  const text = line.trim();
  if (!text) return { type: 'blank' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { type: 'not_json', text };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { type: 'not_object', value };
  return { type: 'message', msg: value as Json, text };
}

/** The fault a record that is not a message is (`what`: what the protocol calls a message). */
export function garbage(kind: 'not_json' | 'not_object', what = 'a message'): DriverFault {
  const detail = kind === 'not_json' ? 'a line that is not JSON' : `a JSON value that is not ${what}`;
  return { type: 'garbage', detail };
}

/**
 * The message a line holds, shown to `tap` (a line that is not JSON as its text); a line that holds
 * none is reported to `fault` and gives undefined, as does a blank one.
 */
export function readMessage(
  line: string,
  fault: (f: DriverFault) => void,
  tap?: (direction: 'in', message: unknown) => void,
): Extract<JsonRecord, { type: 'message' }> | undefined {
  const r = recordOf(line);
  if (r.type === 'blank') return undefined;
  if (r.type === 'not_json') tap?.('in', r.text);
  if (r.type !== 'message') {
    fault(garbage(r.type));
    return undefined;
  }
  tap?.('in', r.msg);
  return r;
}

/** Requests sent and not answered yet, and the ids answered lately. */
export class Pending {
  private readonly open = new Set<string>();
  private readonly answered: string[] = [];

  sent(id: string): void {
    this.open.add(id);
  }

  /** An answer to `id` came: 'ok' once per request sent; else the fault it is (`shown`: the id as the peer wrote it). */
  answer(id: string, shown = id): 'ok' | DriverFault {
    if (!this.open.delete(id)) {
      return this.answered.includes(id)
        ? { type: 'duplicate_response', id: shown }
        : { type: 'unknown_response', id: shown };
    }
    this.answered.push(id);
    if (this.answered.length > ANSWERED_MEMORY) this.answered.shift();
    return 'ok';
  }

  size(): number {
    return this.open.size;
  }
}
