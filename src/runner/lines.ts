// A byte-capped collector for one output pipe. It keeps reading past the cap (so the child never
// blocks on a full pipe) but drops what does not fit, and splits the stream into lines as it comes.
// Past the cap it keeps the head (where CLIs announce the session) and the most recent lines (where
// they put the final reply) and drops the middle, so a run that flooded its output still has a reply.
// Memory stays bounded: the kept lines are at most `maxBytes`, one unfinished line at most the same.

export interface CappedLinesOptions {
  maxBytes: number;
  /** Called for every complete line, also past the cap (each line itself bounded). */
  onLine?: ((line: string) => void) | undefined;
  /** Lines it rejects are streamed to `onLine` but neither kept nor counted against the cap. */
  keep?: ((line: string) => boolean) | undefined;
}

export class CappedLines {
  // Kept lines and their sizes in parallel arrays: no object per line, which with hundreds of
  // thousands of short lines is most of the garbage (bench/parse).
  private head: string[] = [];
  private headSizes: number[] = [];
  private headBytes = 0;
  /** Lines after the protected head; a queue once the cap was reached. */
  private tail: string[] = [];
  private tailSizes: number[] = [];
  private tailStart = 0;
  private tailBytes = 0;
  private split = false;
  private partial: Buffer[] = [];
  private partialBytes = 0;
  private partialCut = false;
  truncated = false;
  /** Every byte the pipe delivered, kept or dropped: the size the run's log line reports. */
  bytes = 0;

  constructor(private readonly opts: CappedLinesOptions) {}

  push(chunk: Buffer | string): void {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.bytes += buf.length;
    let start = 0;
    for (;;) {
      const nl = buf.indexOf(0x0a, start);
      if (nl === -1) break;
      if (this.partialBytes === 0 && !this.partialCut && nl - start <= this.opts.maxBytes) {
        // A whole line inside one chunk (nearly all of them): decoded in place, no copy (bench/parse).
        this.take(buf.toString('utf8', start, nl), nl - start + 1, false);
      } else {
        this.addPartial(buf.subarray(start, nl));
        this.flushLine();
      }
      start = nl + 1;
    }
    if (start < buf.length) this.addPartial(buf.subarray(start));
  }

  /** A last line without a newline (a half-written JSON line, say) is still handed on. */
  end(): void {
    if (this.partialBytes > 0 || this.partialCut) this.flushLine();
  }

  get lines(): string[] {
    return this.head.concat(this.tail.slice(this.tailStart));
  }

  text(): string {
    return this.lines.join('\n');
  }

  private addPartial(piece: Buffer): void {
    const room = this.opts.maxBytes - this.partialBytes;
    if (piece.length > room) {
      // One line longer than the whole cap: cut (it is dropped below, as it cannot fit).
      this.truncated = true;
      this.partialCut = true;
      piece = piece.subarray(0, Math.max(0, room));
    }
    if (piece.length === 0) return;
    this.partial.push(piece);
    this.partialBytes += piece.length;
  }

  private flushLine(): void {
    const line =
      this.partial.length === 1
        ? this.partial[0]!.toString('utf8')
        : Buffer.concat(this.partial).toString('utf8');
    const bytes = this.partialBytes + 1;
    const cut = this.partialCut;
    this.partial = [];
    this.partialBytes = 0;
    this.partialCut = false;
    this.take(line, bytes, cut);
  }

  /** One complete line (`bytes` counts its newline): streamed, then kept unless cut or rejected. */
  private take(text: string, bytes: number, cut: boolean): void {
    const line = text.endsWith('\r') ? text.slice(0, -1) : text;
    this.opts.onLine?.(line);
    if (cut || (this.opts.keep && !this.opts.keep(line))) return;
    this.store(line, bytes);
  }

  private store(line: string, bytes: number): void {
    const max = this.opts.maxBytes;
    if (!this.split && this.headBytes + bytes <= max) {
      this.head.push(line);
      this.headSizes.push(bytes);
      this.headBytes += bytes;
      return;
    }
    if (!this.split) this.splitHead();
    this.truncated = true;
    if (this.headBytes + bytes > max) return;
    this.tail.push(line);
    this.tailSizes.push(bytes);
    this.tailBytes += bytes;
    while (this.headBytes + this.tailBytes > max) {
      this.tailBytes -= this.tailSizes[this.tailStart]!;
      this.tailStart++;
    }
    if (this.tailStart > 1024 && this.tailStart * 2 > this.tail.length) {
      this.tail = this.tail.slice(this.tailStart);
      this.tailSizes = this.tailSizes.slice(this.tailStart);
      this.tailStart = 0;
    }
  }

  /** At the first overflow: the first half of the cap stays; the rest becomes the evicting tail. */
  private splitHead(): void {
    this.split = true;
    let bytes = 0;
    let n = 0;
    while (n < this.head.length && bytes + this.headSizes[n]! <= this.opts.maxBytes / 2) {
      bytes += this.headSizes[n]!;
      n++;
    }
    this.tail = this.head.slice(n);
    this.tailSizes = this.headSizes.slice(n);
    this.tailBytes = this.headBytes - bytes;
    this.head = this.head.slice(0, n);
    this.headSizes = this.headSizes.slice(0, n);
    this.headBytes = bytes;
  }
}

/** Splits a whole captured output the way CappedLines does: no empty line after a final newline. */
export function linesOf(text: string): string[] {
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}
