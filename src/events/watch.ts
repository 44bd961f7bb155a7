// Watching the events folder: fs.watch says "something changed" quickly, but its notices can be
// lost (an overflowing inotify queue, a folder on a network disk), so the folder is also read at
// start and every `rescanMs`. Scans run one at a time; a notice during a scan asks for one more.
import { type FSWatcher, watch } from 'node:fs';
import type { Logger } from '../log.js';

export interface FolderWatch {
  /** Resolves when no scan runs and none is asked for. */
  idle(): Promise<void>;
  /** Asks for a scan now (a trigger, a test). */
  poke(): void;
  close(): void;
}

export function watchFolder(
  dir: string,
  scan: () => Promise<void>,
  rescanMs: number,
  log: Logger,
): FolderWatch {
  let running: Promise<void> | undefined;
  let again = false;
  let closed = false;
  const run = (): void => {
    if (closed) return;
    if (running) {
      again = true;
      return;
    }
    running = scan()
      .catch((err: unknown) => log.error({ err }, 'events: scan failed; the files stay for the next one'))
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          run();
        }
      });
  };
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dir, { persistent: false }, () => run());
    watcher.on('error', (err) =>
      log.warn({ err: err.message }, 'events: folder watch failed; rescans go on'),
    );
  } catch (err) {
    log.warn(
      { err: (err as Error).message },
      'events: the folder cannot be watched; it is read periodically',
    );
  }
  const timer = setInterval(run, rescanMs);
  timer.unref();
  run();
  return {
    async idle() {
      while (running) await running;
    },
    poke: run,
    close() {
      closed = true;
      clearInterval(timer);
      watcher?.close();
    },
  };
}
