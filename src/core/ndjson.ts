// Newline-delimited JSON framing, the one splitter for every JSON-lines stream the relay reads (a
// warm agent's stdout, the control socket). Records end at LF only, cut by byte: Node's readline
// also breaks at U+2028 / U+2029, which JSON allows raw inside a string, so it would split a valid
// record in two. A CR before the LF is dropped (a peer on Windows line endings). Memory is bounded:
// a record that grows past `maxLineBytes` is reported once and its bytes are dropped up to its LF,
// so a peer that never sends a newline cannot make the reader hold more than the cap.
import type { Readable } from 'node:stream';

export interface LineFramerOptions {
  /** The largest record, in bytes without its LF. */
  maxLineBytes: number;
  /** One complete record as text (an empty one too), without its LF or a CR before it. */
  onLine(line: string): void;
  /** A record passed the cap, with the bytes seen of it so far; it is not delivered. */
  onTooLarge(bytes: number): void;
}

export interface LineFramer {
  push(chunk: Buffer | string): void;
  /** The input ended: a last record without its LF is still delivered. */
  end(): void;
}

export function lineFramer(opts: LineFramerOptions): LineFramer {
  const max = opts.maxLineBytes;
  let parts: Buffer[] = [];
  let size = 0;
  // Inside a record that passed the cap: everything up to its LF is dropped.
  let skipping = false;
  const deliver = () => {
    const bytes = parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, size);
    const end = bytes.length > 0 && bytes[bytes.length - 1] === 13 ? bytes.length - 1 : bytes.length;
    parts = [];
    size = 0;
    opts.onLine(bytes.toString('utf8', 0, end));
  };
  const add = (piece: Buffer) => {
    if (skipping) return;
    size += piece.length;
    if (size > max) {
      opts.onTooLarge(size);
      parts = [];
      size = 0;
      skipping = true;
      return;
    }
    if (piece.length > 0) parts.push(piece);
  };
  return {
    push(chunk) {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      let start = 0;
      for (let nl = buf.indexOf(10); nl !== -1; nl = buf.indexOf(10, start)) {
        add(buf.subarray(start, nl));
        if (skipping) skipping = false;
        else deliver();
        start = nl + 1;
      }
      if (start < buf.length) add(buf.subarray(start));
    },
    end() {
      if (!skipping && size > 0) deliver();
      parts = [];
      size = 0;
      skipping = false;
    },
  };
}

/**
 * Frames a readable stream: every chunk pushed, and the last record delivered when the stream
 * emits `endOn` ('close' for a child's pipe, where it follows 'end'), after which `onEnd` runs.
 */
export function frameLines(
  input: Readable,
  opts: LineFramerOptions & { endOn?: 'end' | 'close'; onEnd?: () => void },
): void {
  const framer = lineFramer(opts);
  input.on('data', (chunk: Buffer | string) => framer.push(chunk));
  input.once(opts.endOn ?? 'close', () => {
    framer.end();
    opts.onEnd?.();
  });
}
