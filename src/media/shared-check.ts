// Whether this process's media folder is the one the other processes on the database use. A row names
// a received file, a file waiting to be sent or a file served by URL by its absolute path, and a chat
// moves to another process when its holder dies: on a folder that is not shared, the new holder's run
// finds no file and its send fails. Each process writes a marker named by its id in the store's
// process registry into `<media>/.processes/`; a live process whose marker this one cannot see (twice
// running, so one that has just registered and not yet written it is not counted) does not share the
// folder, and the relay says so once.
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../log.js';
import type { ProcessInfo } from '../store/ownership.js';

/**
 * Pure: the first live process whose marker was missing now and in the round before (`missedBefore`),
 * and the ids missing now (the next round's `missedBefore`).
 */
export function unsharedWith(
  me: string,
  live: readonly ProcessInfo[],
  markers: ReadonlySet<string>,
  missedBefore: ReadonlySet<string>,
): { other: ProcessInfo | undefined; missing: Set<string> } {
  const missing = new Set(live.filter((p) => p.id !== me && !markers.has(p.id)).map((p) => p.id));
  const other = live.find((p) => missing.has(p.id) && missedBefore.has(p.id));
  return { other, missing };
}

/** The one warning, naming the folder and the other process (never a message or a number). */
export function unsharedSentence(dir: string, other: Pick<ProcessInfo, 'role' | 'host' | 'pid'>): string {
  return (
    `the media folder ${dir} is not shared with the ${other.role} on ${other.host} (pid ${other.pid}): ` +
    'a chat that moves between them will not find its files; set store.sharedFolder to a folder every ' +
    'process reaches at the same path (docs/scale-out.md)'
  );
}

export interface SharedCheckDeps {
  /** The media folder (`<state or shared folder>/media`). */
  dir: string;
  me: string;
  processes(): Promise<ProcessInfo[]>;
  log: Logger;
  everyMs: number;
}

export function sharedFolderCheck(deps: SharedCheckDeps): { start(): Promise<void>; stop(): Promise<void> } {
  const markers = join(deps.dir, '.processes');
  const mine = join(markers, deps.me);
  let timer: NodeJS.Timeout | undefined;
  let missed = new Set<string>();
  let said = false;
  let running = false;
  let stopped = false;
  // One round at a time: rounds that overlapped (a slow store) counted one absence twice. And none
  // says anything once stopped: a round still in flight then may see markers the stop just removed.
  const round = async () => {
    if (running || stopped) return;
    running = true;
    try {
      // Relays only: `agentwire chat` and the one-shot commands write no marker and keep no files.
      const live = (await deps.processes()).filter((p) => p.role === 'relay');
      // Unreadable is not "no markers": that would count every other process absent (the catch below).
      const seen = new Set(await readdir(markers));
      const r = unsharedWith(deps.me, live, seen, missed);
      missed = r.missing;
      if (r.other && !said && !stopped) {
        said = true;
        clearInterval(timer);
        deps.log.warn({ folder: deps.dir }, unsharedSentence(deps.dir, r.other));
      }
    } catch (err) {
      // The store busy a moment or the folder unreadable: the next round looks again.
      deps.log.debug({ err }, 'could not check the media folder is shared');
    } finally {
      running = false;
    }
  };
  return {
    async start() {
      try {
        await mkdir(markers, { recursive: true, mode: 0o700 });
        await writeFile(mine, '', { mode: 0o600 });
      } catch (err) {
        // The files themselves will fail to save and say so; the relay still starts.
        deps.log.warn({ err, folder: deps.dir }, 'cannot write into the media folder');
      }
      await round();
      if (said) return;
      timer = setInterval(() => void round(), deps.everyMs);
      timer.unref();
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await rm(mine, { force: true });
    },
  };
}
