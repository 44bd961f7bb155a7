// `agentwire login` / `logout` as a user runs them (the built binary). Only paths that never open a
// connection are exercised here; linking itself is tested with a fake socket in test/channels.
import { spawn, spawnSync } from 'node:child_process';
import { accessSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { linkState, loadAuth } from '../../src/channels/whatsapp/auth-store.js';
import { acquireLock } from '../../src/store/home-lock.js';
import { openDb } from '../../src/store/sqlite/db.js';
import { whatsappAuthStore, whatsappMigration } from '../../src/store/sqlite/whatsapp-auth.js';
import { seedLinkedCreds } from '../channels/whatsapp/harness.js';
import { tempDir } from '../helpers/tmp.js';

const bin = new URL('../../dist/cli/bin.js', import.meta.url).pathname;

function run(home: string, args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: home, AGENTWIRE_HOME: home },
    encoding: 'utf8',
    input: '',
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The same, without blocking this process: it may hold the relay lock and must answer on it. */
function runAsync(home: string, args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: home, AGENTWIRE_HOME: home },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

/** Holds the relay lock of `home` in this process, the way a running relay does. */
async function holdLock(home: string): Promise<() => Promise<void>> {
  const lock = await acquireLock(join(home, 'relay.lock'), home);
  if (!lock.ok) throw new Error('lock not taken');
  return lock.release;
}

const newHome = () => tempDir('aw-cli-wa-');

beforeAll(() => accessSync(bin));

describe('agentwire login', () => {
  it('while a relay holds the lock, links through it instead of kicking it off (here it does not answer)', async () => {
    const home = newHome();
    const release = await holdLock(home);
    const r = await runAsync(home, ['login']);
    const p = await runAsync(home, ['login', '--pair', '+15551234567']);
    await release();
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`agentwire relay is running (pid ${process.pid}); linking through it failed`);
    expect(p.code).toBe(1);
    expect(p.stderr).toContain('without --pair to scan its QR code');
  });

  it('rejects a pairing number that is not E.164', () => {
    const r = run(newHome(), ['login', '--pair', '555-1234']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('E.164');
  });
});

describe('agentwire logout', () => {
  it('says so when nothing is linked', () => {
    const r = run(newHome(), ['logout', '--yes']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('not linked');
  });

  it('asks before unlinking; without a terminal it needs --yes and changes nothing', async () => {
    const home = newHome();
    const db = openDb(join(home, 'agentwire.db'), [whatsappMigration]);
    await seedLinkedCreds(db);
    const r = run(home, ['logout']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--yes');
    expect(await linkState(whatsappAuthStore(db))).toBe('linked');
    db.close();
  });

  it('--yes deletes credentials the phone already unlinked (no connection needed)', async () => {
    const home = newHome();
    const db = openDb(join(home, 'agentwire.db'), [whatsappMigration]);
    await seedLinkedCreds(db);
    const loaded = await loadAuth(whatsappAuthStore(db));
    if (loaded.ok) loaded.auth.markLoggedOut();
    const r = run(home, ['logout', '--yes']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('credentials were deleted');
    expect(await linkState(whatsappAuthStore(db))).toBe('unlinked');
    db.close();
  });

  it('refuses while a relay holds the lock', async () => {
    const home = newHome();
    const release = await holdLock(home);
    const r = await runAsync(home, ['logout', '--yes']);
    await release();
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('relay is running');
  });
});
