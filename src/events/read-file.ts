// Reads one dropped event file without trusting it: opened with O_NOFOLLOW (a symlink fails with
// ELOOP instead of reading whatever it points at) and O_NONBLOCK (opening a FIFO must not hang the
// relay until a writer comes), then checked with fstat on the opened descriptor, so what is read is
// what was checked. At most `maxBytes + 1` bytes are read: a file growing meanwhile is still capped.
import { createHash } from 'node:crypto';
import { constants, promises as fs } from 'node:fs';

export type ReadEvent =
  | {
      ok: true;
      text: string;
      /** Same file, same key: a file read again after a crash (stored, not yet deleted) is a duplicate. */
      key: string;
      /** When it was last written (a file still being written is not judged yet). */
      mtimeMs: number;
    }
  | { ok: false; error: string }
  /** Gone before it could be read (another scan took it): nothing to do. */
  | { ok: false; gone: true };

export async function readEventFile(path: string, name: string, maxBytes: number): Promise<ReadEvent> {
  let fh: fs.FileHandle;
  try {
    fh = await fs.open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { ok: false, gone: true };
    if (code === 'ELOOP') return { ok: false, error: 'a symbolic link, not a regular file' };
    return { ok: false, error: `cannot be opened (${code ?? (err as Error).message})` };
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) return { ok: false, error: `not a regular file (${kind(st)})` };
    if (st.size > maxBytes)
      return { ok: false, error: `larger than events.maxFileBytes (${maxBytes} bytes)` };
    const buf = Buffer.alloc(maxBytes + 1);
    let n = 0;
    while (n < buf.length) {
      const r = await fh.read(buf, n, buf.length - n, n);
      if (r.bytesRead === 0) break;
      n += r.bytesRead;
    }
    if (n > maxBytes) return { ok: false, error: `larger than events.maxFileBytes (${maxBytes} bytes)` };
    const body = buf.subarray(0, n);
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(body);
    } catch {
      return { ok: false, error: 'not UTF-8 text' };
    }
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 32);
    return { ok: true, text, key: `file:${name}:${st.ino}:${st.mtimeMs}:${hash}`, mtimeMs: st.mtimeMs };
  } finally {
    await fh.close();
  }
}

function kind(st: import('node:fs').Stats): string {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isDirectory()) return 'a folder';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a file';
}
