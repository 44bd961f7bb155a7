// A pino destination writing JSON lines to <dir>/agentwire.log, rotating by size:
// agentwire.log → agentwire.log.1 → … → agentwire.log.<keep>, the oldest deleted. Files are 0600 and
// the folder 0700 because log lines carry masked chat ids and error text. Writes are synchronous, so
// a line is on disk before the call returns and nothing is lost at a crash; a relay logs little.
import {
  chmodSync,
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

export const LOG_FILE_NAME = 'agentwire.log';

export interface RotatingFileOptions {
  dir: string;
  /** Rotate once the current file would grow past this many bytes. */
  maxBytes: number;
  /** Rotated files kept besides the current one. */
  keep: number;
  name?: string;
}

export class RotatingFileStream {
  readonly file: string;
  private fd: number;
  private size: number;
  private failed = false;

  constructor(private readonly opts: RotatingFileOptions) {
    mkdirSync(opts.dir, { recursive: true, mode: 0o700 });
    chmodSync(opts.dir, 0o700);
    this.file = join(opts.dir, opts.name ?? LOG_FILE_NAME);
    this.fd = this.open();
    this.size = fstatSync(this.fd).size;
  }

  write(chunk: string): boolean {
    const bytes = Buffer.byteLength(chunk);
    try {
      if (this.size > 0 && this.size + bytes > this.opts.maxBytes) this.rotate();
      writeSync(this.fd, chunk);
      this.size += bytes;
      this.failed = false;
    } catch (err) {
      // A full disk must not take the relay down with it: drop the line, say so once on stderr.
      if (!this.failed)
        process.stderr.write(`agentwire: cannot write ${this.file}: ${(err as Error).message}\n`);
      this.failed = true;
    }
    return true;
  }

  /** All writes are synchronous; present so pino's flush calls find it. */
  flushSync(): void {}

  end(): void {
    closeSync(this.fd);
  }

  /** The current file and the rotated ones, newest first, that exist. */
  files(): string[] {
    return rotatedFiles(this.file, this.opts.keep);
  }

  private open(): number {
    const fd = openSync(this.file, 'a', 0o600);
    chmodSync(this.file, 0o600);
    return fd;
  }

  private rotate(): void {
    closeSync(this.fd);
    rmSync(`${this.file}.${this.opts.keep}`, { force: true });
    for (let i = this.opts.keep - 1; i >= 1; i--) {
      if (exists(`${this.file}.${i}`)) renameSync(`${this.file}.${i}`, `${this.file}.${i + 1}`);
    }
    renameSync(this.file, `${this.file}.1`);
    this.fd = this.open();
    this.size = 0;
  }
}

/** `file`, `file.1` … `file.<keep>` that exist, newest first. */
export function rotatedFiles(file: string, keep = 100): string[] {
  const all = [file, ...Array.from({ length: keep }, (_, i) => `${file}.${i + 1}`)];
  return all.filter(exists);
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}
