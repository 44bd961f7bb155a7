// A byte-capped collector for one output pipe. It keeps reading past the cap (so the child never
// blocks on a full pipe) but drops what does not fit, and splits the stream into lines as it comes.
// Memory stays bounded: the kept lines are at most `maxBytes`, and one unfinished line at most the
// same again (longer lines are cut).

export interface CappedLinesOptions {
  maxBytes: number;
  /** Called for every complete line, also past the cap (each line itself bounded). */
  onLine?: ((line: string) => void) | undefined;
  /** Lines it rejects are streamed to `onLine` but neither kept nor counted against the cap. */
  keep?: ((line: string) => boolean) | undefined;
}

export class CappedLines {
  private kept = 0;
  private partial: Buffer[] = [];
  private partialBytes = 0;
  private partialCut = false;
  readonly lines: string[] = [];
  truncated = false;

  constructor(private readonly opts: CappedLinesOptions) {}

  push(chunk: Buffer | string): void {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let start = 0;
    for (;;) {
      const nl = buf.indexOf(0x0a, start);
      if (nl === -1) break;
      this.addPartial(buf.subarray(start, nl));
      this.flushLine();
      start = nl + 1;
    }
    if (start < buf.length) this.addPartial(buf.subarray(start));
  }

  /** A last line without a newline (a half-written JSON line, say) is still handed on. */
  end(): void {
    if (this.partialBytes > 0 || this.partialCut) this.flushLine();
  }

  text(): string {
    return this.lines.join('\n');
  }

  private addPartial(piece: Buffer): void {
    const room = this.opts.maxBytes - this.partialBytes;
    if (piece.length > room) {
      this.partialCut = true;
      this.truncated = true;
      piece = piece.subarray(0, Math.max(0, room));
    }
    if (piece.length === 0) return;
    this.partial.push(piece);
    this.partialBytes += piece.length;
  }

  private flushLine(): void {
    let line =
      this.partial.length === 1
        ? this.partial[0]!.toString('utf8')
        : Buffer.concat(this.partial).toString('utf8');
    const bytes = this.partialBytes;
    this.partial = [];
    this.partialBytes = 0;
    this.partialCut = false;
    if (line.endsWith('\r')) line = line.slice(0, -1);
    this.opts.onLine?.(line);
    if (this.opts.keep && !this.opts.keep(line)) return;
    if (this.truncated || this.kept + bytes + 1 > this.opts.maxBytes) {
      // Keep the head only: once something was dropped, later lines would leave a gap.
      this.truncated = true;
      return;
    }
    this.kept += bytes + 1;
    this.lines.push(line);
  }
}
