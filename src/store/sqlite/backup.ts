// A consistent copy of the store while the relay keeps running: SQLite's VACUUM INTO reads one
// snapshot (a write in progress is either wholly in or wholly out) through a read-only connection.
// The copy holds WhatsApp credentials and messages, so it is created 0600 before anything is written.
import { closeSync, existsSync, openSync, rmSync, statSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';

import type { BackupResult } from '../admin.js';

export async function backupStore(dbFile: string, dest: string): Promise<BackupResult> {
  if (!existsSync(dbFile))
    return { ok: false, error: `there is no store at ${dbFile} yet: nothing to back up` };
  try {
    // `wx`: never overwrite an earlier backup; VACUUM INTO accepts the empty file we made.
    closeSync(openSync(dest, 'wx', 0o600));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return {
      ok: false,
      error:
        code === 'EEXIST' ? `${dest} already exists; choose a new name` : `cannot create ${dest}: ${code}`,
    };
  }
  let src: DatabaseSync | undefined;
  try {
    src = new DatabaseSync(dbFile, { readOnly: true });
    src.exec('PRAGMA busy_timeout = 5000');
    src.prepare('VACUUM INTO ?').run(dest);
    src.close();
    src = undefined;
    const copy = new DatabaseSync(dest, { readOnly: true });
    const check = copy.prepare('PRAGMA integrity_check').get() as { integrity_check?: string } | undefined;
    copy.close();
    if (check?.integrity_check !== 'ok')
      throw new Error(`the copy failed its integrity check (${check?.integrity_check})`);
    return { ok: true, bytes: statSync(dest).size };
  } catch (err) {
    src?.close();
    rmSync(dest, { force: true });
    return { ok: false, error: (err as Error).message };
  }
}
