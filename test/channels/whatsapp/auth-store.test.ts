// Auth state in real SQLite. A full disk is simulated by SQLite itself (PRAGMA max_page_count makes
// every write past the limit fail with SQLITE_FULL), and by a store wrapper that throws mid-write.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { proto, type SignalDataSet } from '@whiskeysockets/baileys';
import { describe, expect, it, vi } from 'vitest';
import {
  linkedAccount,
  linkState,
  loadAuth,
  storeKeyStore,
} from '../../../src/channels/whatsapp/auth-store.js';
import { type Db, openDb } from '../../../src/store/sqlite/db.js';
import { whatsappAuthStore, whatsappMigration } from '../../../src/store/sqlite/whatsapp-auth.js';
import { tempDir } from '../../helpers/tmp.js';
import { seedLinkedCreds, setup } from './harness.js';

function freshDb(): { db: Db; file: string } {
  const file = join(tempDir('aw-auth-'), 'agentwire.db');
  return { db: openDb(file, [whatsappMigration]), file };
}

/** Makes the database "full": no page may be added from now on. */
function fillDisk(db: Db): void {
  const { page_count } = db.prepare('PRAGMA page_count').get() as { page_count: number };
  db.exec(`PRAGMA max_page_count = ${page_count}`);
}

const credsRow = (db: Db) =>
  db.prepare('SELECT data FROM wa_creds WHERE id = 1').get() as { data: string } | undefined;

const ALL_TYPES: SignalDataSet = {
  'pre-key': { '1': { public: Buffer.alloc(32, 1), private: Buffer.alloc(32, 2) } },
  session: { 'alice.0': Buffer.from('session-bytes') },
  'sender-key': { 'group::alice': Buffer.from('sender-key') },
  'sender-key-memory': { group: { 'alice@s.whatsapp.net': true } },
  'app-state-sync-key': { AAA: { keyData: Buffer.from('kd'), timestamp: 5 } },
  'app-state-sync-version': { regular: { version: 3, hash: Buffer.alloc(128, 9), indexValueMap: {} } },
  'lid-mapping': { '15557654321': '444555', '444555_reverse': '15557654321' },
  'device-list': { '15557654321': ['0', '12'] },
  tctoken: { '15557654321@s.whatsapp.net': { token: Buffer.from('tc'), timestamp: '1700000000' } },
  'identity-key': { 'alice.0': Buffer.alloc(33, 5) },
};

describe('SQLite auth state', () => {
  it('round-trips creds and every Signal key type, v7 types included, in a 0600 file', async () => {
    const { db, file } = freshDb();
    expect(await linkState(whatsappAuthStore(db))).toBe('unlinked');
    await seedLinkedCreds(db);
    expect(await linkState(whatsappAuthStore(db))).toBe('linked');
    const first = await loadAuth(whatsappAuthStore(db));
    if (!first.ok) throw new Error(first.error);
    await first.auth.state.keys.set(ALL_TYPES);

    const again = await loadAuth(whatsappAuthStore(db));
    if (!again.ok) throw new Error(again.error);
    expect(again.link).toBe('linked');
    const c = again.auth.state.creds;
    expect(Buffer.isBuffer(c.noiseKey.private)).toBe(true);
    expect(c.me?.id).toBe('15550001111:7@s.whatsapp.net');
    const keys = storeKeyStore(whatsappAuthStore(db));
    for (const [type, entries] of Object.entries(ALL_TYPES)) {
      const got = await keys.get(type as keyof SignalDataSet, Object.keys(entries!));
      expect(Object.keys(got)).toEqual(Object.keys(entries!));
    }
    const sk = await keys.get('app-state-sync-key', ['AAA']);
    expect(sk.AAA).toBeInstanceOf(proto.Message.AppStateSyncKeyData);
    const pk = await keys.get('pre-key', ['1']);
    expect(Buffer.from(pk['1']!.private).equals(Buffer.alloc(32, 2))).toBe(true);
    expect(await keys.get('device-list', ['15557654321'])).toEqual({ '15557654321': ['0', '12'] });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('deletes a key set to null', async () => {
    const { db } = freshDb();
    const keys = storeKeyStore(whatsappAuthStore(db));
    await keys.set({ session: { a: Buffer.from('x') } });
    await keys.set({ session: { a: null } });
    expect(await keys.get('session', ['a'])).toEqual({});
  });

  it('writes a batch of keys atomically: a full disk mid-batch writes none of it', async () => {
    const { db } = freshDb();
    const keys = storeKeyStore(whatsappAuthStore(db));
    await keys.set({ session: { old: Buffer.from('kept') } });
    fillDisk(db);
    const big: SignalDataSet = {
      session: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`s${i}`, Buffer.alloc(2000, i)])),
    };
    await expect(keys.set(big)).rejects.toThrow(/full/);
    expect(db.prepare('SELECT count(*) AS n FROM wa_keys').get()).toEqual({ n: 1 });
    expect(Buffer.from((await keys.get('session', ['old'])).old!).toString()).toBe('kept');
  });

  it('a full disk during a creds save keeps the stored identity intact and loadable', async () => {
    const { db } = freshDb();
    await seedLinkedCreds(db);
    const before = credsRow(db)!.data;
    const loaded = await loadAuth(whatsappAuthStore(db));
    if (!loaded.ok) throw new Error(loaded.error);
    fillDisk(db);
    loaded.auth.state.creds.processedHistoryMessages = Array.from({ length: 500 }, (_, i) => ({
      key: { id: `M${i}`.padEnd(200, 'x') },
      messageTimestamp: i,
    }));
    await expect(loaded.auth.saveCreds()).rejects.toThrow(/full/);
    expect(credsRow(db)!.data).toBe(before);
    expect(await linkState(whatsappAuthStore(db))).toBe('linked');
    const reloaded = await loadAuth(whatsappAuthStore(db));
    expect(reloaded.ok && reloaded.auth.state.creds.me?.id).toBe('15550001111:7@s.whatsapp.net');
    // Saving works again once there is room, and the next save is not blocked by the failed one.
    db.exec('PRAGMA max_page_count = 1000000');
    await expect(loaded.auth.saveCreds()).resolves.toBeUndefined();
  });

  it('a store that throws mid-transaction leaves nothing half-written', async () => {
    const { db } = freshDb();
    let writes = 0;
    // The "disk" accepts three rows, then fails: the wrapper sits between the store and SQLite.
    const flaky = new Proxy(db, {
      get(target, prop, receiver) {
        if (prop === 'prepare') {
          return (sql: string) => {
            const stmt = target.prepare(sql);
            if (!sql.startsWith('INSERT')) return stmt;
            return {
              run: (...args: unknown[]) => {
                if (++writes > 3)
                  throw Object.assign(new Error('disk I/O error'), { code: 'ERR_SQLITE_ERROR' });
                return stmt.run(...(args as []));
              },
            };
          };
        }
        const v = Reflect.get(target, prop, receiver);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    }) as Db;
    const keys = storeKeyStore(whatsappAuthStore(flaky));
    await expect(
      keys.set({
        session: { a: Buffer.from('1'), b: Buffer.from('2'), c: Buffer.from('3'), d: Buffer.from('4') },
      }),
    ).rejects.toThrow(/disk I\/O/);
    expect(db.prepare('SELECT count(*) AS n FROM wa_keys').get()).toEqual({ n: 0 });
    expect(db.isTransaction).toBe(false);
  });

  it('never mints a new identity over unreadable creds', async () => {
    const { db } = freshDb();
    db.prepare('INSERT INTO wa_creds (id, data, updated_at) VALUES (1, ?, 0)').run('{"truncated":');
    const r = await loadAuth(whatsappAuthStore(db));
    expect(r).toMatchObject({ ok: false });
    expect(!r.ok && r.error).toMatch(/left untouched/);
    expect(credsRow(db)!.data).toBe('{"truncated":');
    expect(await linkState(whatsappAuthStore(db))).toBe('linked'); // not "unlinked": the relay must not start a fresh login
  });

  it('refuses to save a different identity over a linked one', async () => {
    const { db } = freshDb();
    await seedLinkedCreds(db);
    const before = credsRow(db)!.data;
    const loaded = await loadAuth(whatsappAuthStore(db));
    if (!loaded.ok) throw new Error(loaded.error);
    const c = loaded.auth.state.creds as { signedIdentityKey: { public: Uint8Array } };
    c.signedIdentityKey = { ...c.signedIdentityKey, public: Buffer.alloc(32, 0xee) };
    await expect(loaded.auth.saveCreds()).rejects.toThrow(/refusing to replace/);
    expect(credsRow(db)!.data).toBe(before);
  });

  it('clear() removes creds, keys and sent history together', async () => {
    const { db } = freshDb();
    await seedLinkedCreds(db);
    const loaded = await loadAuth(whatsappAuthStore(db));
    if (!loaded.ok) throw new Error(loaded.error);
    await loaded.auth.state.keys.set({ session: { a: Buffer.from('x') } });
    await loaded.auth.clear();
    expect(await linkState(whatsappAuthStore(db))).toBe('unlinked');
    expect(db.prepare('SELECT count(*) AS n FROM wa_keys').get()).toEqual({ n: 0 });
  });
});

describe('creds.update on a full disk, through the channel', () => {
  it('logs the failure, stays connected and keeps the stored creds', async () => {
    const h = await setup();
    const s = await h.start();
    const before = credsRow(h.db)!.data;
    fillDisk(h.db);
    s.emit('creds.update', {
      processedHistoryMessages: Array.from({ length: 500 }, (_, i) => ({
        key: { id: `H${i}`.padEnd(200, 'y') },
      })),
    });
    await vi.waitFor(() =>
      expect(h.logs.find((l) => l.msg === 'could not save WhatsApp credentials (disk full?)')).toMatchObject({
        level: 50,
      }),
    );
    expect(h.channel.status().type).toBe('connected');
    expect(credsRow(h.db)!.data).toBe(before);
  });
});

describe('linkedAccount', () => {
  it('is the linked number, and nothing once logged out or never linked', async () => {
    const { db } = freshDb();
    expect(await linkedAccount(whatsappAuthStore(db))).toBeUndefined();
    await seedLinkedCreds(db);
    expect(await linkedAccount(whatsappAuthStore(db))).toBe('+15550001111');
    const loaded = await loadAuth(whatsappAuthStore(db));
    if (loaded.ok) await loaded.auth.markLoggedOut();
    expect(await linkedAccount(whatsappAuthStore(db))).toBeUndefined();
  });
});
