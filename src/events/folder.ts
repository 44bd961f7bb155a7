// The events folder: every `*.json` file in <state>/events/ is one event. A scan reads the files in
// name order, stores the good ones in one transaction per batch, and only then deletes them; a bad
// one is moved to events/rejected/ with `<name>.error` beside it saying why. A crash after the store
// and before the delete leaves the file, which the next scan reads again: its key (name, inode,
// mtime, content hash) is already stored, so it is deleted without a second event.
//
// Names starting with a dot and names not ending in `.json` are left alone: a writer writes under
// such a name and renames when done, so a half-written file is never read. A writer that writes in
// place is given `settleMs`: a file that does not parse and was written within it is looked at
// again by a later scan rather than rejected half-written.
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../log.js';
import type { EventStore, NewEvent } from '../store/events.js';
import { type CheckedEvent, checkEventText, type ResolveChat } from './event-file.js';
import { eventPrompt } from './prompt.js';
import { readEventFile } from './read-file.js';

export const REJECTED = 'rejected';
/** Rows per store transaction: a burst of files is stored quickly without one huge transaction. */
const BATCH = 200;

export interface FolderDeps {
  dir: string;
  maxFileBytes: number;
  store: Pick<EventStore, 'addAll'>;
  resolve: ResolveChat;
  knownAgent: (kind: string) => boolean;
  now: () => number;
  log: Logger;
  /** A fresh file that does not parse waits this long before it is rejected (default 2 s). */
  settleMs?: number;
}

export const SETTLE_MS = 2000;

export interface ScanResult {
  stored: number;
  duplicate: number;
  rejected: number;
  /** Fresh files that do not parse yet: perhaps still being written. */
  waiting: number;
}

/** The stored form of a checked event (files and `agentwire trigger` alike). */
export function storedEvent(source: string, e: CheckedEvent, orderName: string, label: string): NewEvent {
  return {
    source,
    chat: e.chat,
    prompt: eventPrompt(label, e.text, e.options.quiet === true),
    dueAt: e.dueAt,
    orderName,
    options: JSON.stringify(e.options),
  };
}

export async function scanFolder(d: FolderDeps): Promise<ScanResult> {
  const out: ScanResult = { stored: 0, duplicate: 0, rejected: 0, waiting: 0 };
  let names: string[];
  try {
    names = (await fs.readdir(d.dir)).filter((n) => n.endsWith('.json') && !n.startsWith('.')).sort();
  } catch (err) {
    d.log.error({ err: (err as Error).message }, 'events: the folder cannot be read');
    return out;
  }
  // One arrival time for the whole scan: files without `at` then run in name order.
  const now = d.now();
  const good: { name: string; event: NewEvent & { key: string } }[] = [];
  for (const name of names) {
    const path = join(d.dir, name);
    const r = await readEventFile(path, name, d.maxFileBytes);
    if (!r.ok) {
      if ('gone' in r) continue;
      await reject(d, name, r.error);
      out.rejected++;
      continue;
    }
    const c = checkEventText(r.text, d.resolve, d.knownAgent, now);
    // The wall clock, not `now`: how long ago the file system says the file was written. mtimeMs
    // has a fraction of a millisecond and Date.now() none, so a file written this millisecond would
    // be -0.x ms old and wait even with a settle time of 0: both are compared in whole milliseconds.
    if (!c.ok && Date.now() - Math.floor(r.mtimeMs) < (d.settleMs ?? SETTLE_MS)) {
      out.waiting++;
      continue;
    }
    if (!c.ok) {
      await reject(d, name, c.error);
      out.rejected++;
      continue;
    }
    good.push({ name, event: { ...storedEvent(`file:${name}`, c.event, name, `file ${name}`), key: r.key } });
  }
  for (let i = 0; i < good.length; i += BATCH) {
    const batch = good.slice(i, i + BATCH);
    // A store failure throws: the files stay, and the next scan tries them again.
    const results = await d.store.addAll(
      batch.map((g) => g.event),
      now,
    );
    results.forEach((r) => {
      if (r.type === 'added') out.stored++;
      else out.duplicate++;
    });
    // Durable now: only from here may the files go.
    for (const g of batch) await fs.rm(join(d.dir, g.name), { force: true });
  }
  return out;
}

async function reject(d: FolderDeps, name: string, error: string): Promise<void> {
  const dir = join(d.dir, REJECTED);
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  // An earlier reject of the same name is kept: this one gets a time prefix.
  let target = name;
  if (await exists(join(dir, target))) target = `${d.now()}-${name}`;
  // Written aside, then renamed: whoever waits for the .error file (a script, a test) never reads
  // it half-written.
  const tmp = join(dir, `.${target}.error.tmp`);
  await fs.writeFile(tmp, `${error}\n`, { mode: 0o600 });
  await fs.rename(tmp, join(dir, `${target}.error`));
  await fs.rename(join(d.dir, name), join(dir, target)).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
  });
  // The reason may quote the file or name a phone number: it goes in the .error file, not the log.
  d.log.warn(
    { file: name, rejectedAs: target },
    'events: file rejected; the reason is in rejected/<name>.error',
  );
}

async function exists(path: string): Promise<boolean> {
  try {
    await fs.lstat(path);
    return true;
  } catch {
    return false;
  }
}
