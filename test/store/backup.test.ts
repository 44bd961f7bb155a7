import { spawnSync } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { backupStore } from '../../src/store/sqlite/backup.js';
import { openDb } from '../../src/store/sqlite/db.js';
import { QUEUE_MIGRATIONS } from '../../src/store/sqlite/queue-schema.js';
import { saveSession } from '../../src/store/sqlite/sessions.js';
import { tempDir } from '../helpers/tmp.js';

const bin = new URL('../../dist/cli/bin.js', import.meta.url).pathname;
const tmp = () => tempDir('aw-backup-');

describe('backupStore', () => {
  it('copies a consistent snapshot while another connection holds a write open, as a 0600 file', async () => {
    const dir = tmp();
    const db = openDb(join(dir, 'agentwire.db'), QUEUE_MIGRATIONS);
    saveSession(db, 'whatsapp:+15551234567', 'claude', 'committed', 1);
    db.exec('BEGIN IMMEDIATE');
    saveSession(db, 'whatsapp:+15550000000', 'claude', 'uncommitted', 2);
    const dest = join(dir, 'copy.db');
    const r = await backupStore(join(dir, 'agentwire.db'), dest);
    db.exec('COMMIT');
    db.close();
    expect(r.ok).toBe(true);
    expect(statSync(dest).mode & 0o777).toBe(0o600);
    const copy = new DatabaseSync(dest, { readOnly: true });
    expect(
      copy
        .prepare('SELECT session_id FROM sessions')
        .all()
        .map((x) => (x as { session_id: string }).session_id),
    ).toEqual(['committed']);
    copy.close();
  });

  it('never overwrites a file and says when there is nothing to back up', async () => {
    const dir = tmp();
    expect(await backupStore(join(dir, 'none.db'), join(dir, 'x.db'))).toEqual({
      ok: false,
      error: `there is no store at ${join(dir, 'none.db')} yet: nothing to back up`,
    });
    openDb(join(dir, 'agentwire.db'), QUEUE_MIGRATIONS).close();
    writeFileSync(join(dir, 'old.db'), 'precious');
    const r = await backupStore(join(dir, 'agentwire.db'), join(dir, 'old.db'));
    expect(r).toEqual({ ok: false, error: `${join(dir, 'old.db')} already exists; choose a new name` });
  });

  it('agentwire backup FILE through the built binary', () => {
    const home = tmp();
    openDb(join(home, 'agentwire.db'), QUEUE_MIGRATIONS).close();
    const dest = join(home, 'b.db');
    const r = spawnSync(process.execPath, [bin, 'backup', dest], {
      env: { AGENTWIRE_HOME: home, PATH: process.env.PATH ?? '' },
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`to ${dest}`);
    expect(statSync(dest).mode & 0o777).toBe(0o600);
  });
});
