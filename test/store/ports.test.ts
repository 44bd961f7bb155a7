// The store's ports (store/open.ts) over a real SQLite file: each operation is a Promise, each write
// one transaction, and a failure is a StoreError saying whether waiting helps, never an engine code.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { nextStatus } from '../../src/channels/twilio/status.js';
import { StoreError } from '../../src/store/errors.js';
import { type Db, openDb } from '../../src/store/sqlite/db.js';
import { type Store, storeOver } from '../../src/store/sqlite/open.js';
import { ALL_MIGRATIONS } from '../../src/store/sqlite/schema.js';
import { readStatusFile, readWhatsAppCredsFile } from '../../src/store/sqlite/status-read.js';
import { tempDir } from '../helpers/tmp.js';

let store: Store | undefined;
/** The connection under `store`: a full disk is set per connection. */
let handle: Db | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

async function fresh(): Promise<{ store: Store; file: string }> {
  const file = join(tempDir('aw-ports-'), 'agentwire.db');
  handle = openDb(file, ALL_MIGRATIONS);
  store = storeOver(handle);
  return { store, file };
}

/** Makes the database "full": no page may be added from now on. */
function fillDisk(_s: Store): void {
  if (!handle) throw new Error('no store open');
  const { page_count } = handle.prepare('PRAGMA page_count').get() as { page_count: number };
  handle.exec(`PRAGMA max_page_count = ${page_count}`);
}

describe('store ports', () => {
  it('a full disk rejects with a StoreError (full, retryable) and writes none of a batch', async () => {
    const { store: s } = await fresh();
    await s.whatsapp.auth.writeKeys([{ type: 'session', id: 'kept', data: '"x"' }]);
    fillDisk(s);
    const big = Array.from({ length: 300 }, (_, i) => ({
      type: 'session',
      id: `s${i}`,
      data: 'y'.repeat(2000),
    }));
    const err = await s.whatsapp.auth.writeKeys(big).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).failure).toMatchObject({ ok: false, reason: 'full', retryable: true });
    expect(err).not.toHaveProperty('errcode');
    expect([...(await s.whatsapp.auth.readKeys('session', ['kept', 's0', 's299']))]).toEqual([
      ['kept', '"x"'],
    ]);
  });

  it('a bug is not retryable: reason other', async () => {
    const { store: s } = await fresh();
    await s.close();
    const err = await s.jobStates.loadAll().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).failure).toMatchObject({ reason: 'other', retryable: false });
    store = undefined;
  });

  it('twilio: a status moves only forward, a refusal is claimed once a day, a poll id is seen once', async () => {
    const { store: s } = await fresh();
    await s.twilio.saveTwilioSend('SM1', '+15551234567', 'queued', 1000);
    expect(await s.twilio.recordStatus('SM1', 'delivered', undefined, 2000, nextStatus)).toBe('delivered');
    expect(await s.twilio.recordStatus('SM1', 'sent', undefined, 3000, nextStatus)).toBe('delivered');
    expect(await s.twilio.recordStatus('SM-unknown', 'sent', undefined, 3000, nextStatus)).toBeUndefined();
    expect(await s.twilio.delivery('SM1')).toEqual({
      sid: 'SM1',
      chatId: '+15551234567',
      status: 'delivered',
      updatedAt: 2000,
    });
    expect(await s.twilio.claimRefusal('+1555', 10)).toBe(true);
    expect(await s.twilio.claimRefusal('+1555', 20)).toBe(false);
    expect(await s.twilio.claimRefusal('+1555', 20 + 86_400_000)).toBe(true);
    expect(await s.twilio.markPollSeen('SMa', 1)).toBe(true);
    expect(await s.twilio.markPollSeen('SMa', 2)).toBe(false);
    expect(await s.twilio.pollSeen('SMa')).toBe(true);
    await s.twilio.prune(15 * 86_400_000);
    expect(await s.twilio.pollSeen('SMa')).toBe(false);
  });

  it('job states, media links and alert incidents round-trip', async () => {
    const { store: s } = await fresh();
    await s.jobStates.save(
      'heartbeat',
      { fingerprint: 'every:60000', failureStreak: 2, attempts: 0, done: false, nextRunAt: 5 },
      1,
    );
    expect((await s.jobStates.loadAll()).get('heartbeat')).toEqual({
      fingerprint: 'every:60000',
      failureStreak: 2,
      attempts: 0,
      done: false,
      nextRunAt: 5,
      lastRunAt: undefined,
      lastOutcome: undefined,
      lastDetail: undefined,
      runningSince: undefined,
    });
    await s.mediaLinks.add('a.pdf', { mimeType: 'application/pdf', sizeBytes: 8, expiresAt: 100 });
    await s.mediaLinks.add('b.pdf', { mimeType: 'application/pdf', sizeBytes: 8, expiresAt: 300 });
    expect(await s.mediaLinks.expired(200)).toEqual(['a.pdf']);
    await s.incidents.put('whatsapp', { kind: 'degraded', since: 7 });
    expect(await s.incidents.get('whatsapp')).toEqual({ kind: 'degraded', since: 7 });
    await s.incidents.clear('whatsapp');
    expect(await s.incidents.get('whatsapp')).toBeUndefined();
  });

  it('forget() removes creds, keys, sent ids and chat JIDs together', async () => {
    const { store: s } = await fresh();
    await s.whatsapp.auth.saveCreds('{"me":{"id":"1@s.whatsapp.net"},"account":{}}', 1);
    await s.whatsapp.auth.writeKeys([{ type: 'session', id: 'a', data: '1' }]);
    await s.whatsapp.sent.reserve('ID1', 'j@s.whatsapp.net', 1);
    await s.whatsapp.chats.remember('+1555', 'j@lid', 1);
    await s.whatsapp.auth.forget();
    expect(await s.whatsapp.auth.readCreds()).toBeUndefined();
    expect((await s.whatsapp.auth.readKeys('session', ['a'])).size).toBe(0);
    expect(await s.whatsapp.sent.get('ID1')).toBeUndefined();
    expect(await s.whatsapp.chats.jidFor('+1555')).toBeUndefined();
  });
});

describe("the queue port fails in the store's words, never node:sqlite's", () => {
  const msg = {
    channel: 'console',
    chatId: 'local',
    senderId: 'local',
    messageId: 'm1',
    text: 'hello',
    media: [],
    isGroup: false,
    mentioned: false,
    at: 1,
  };

  it('a full disk (max_page_count reached): the write is refused as full, retryable', async () => {
    const { store: s } = await fresh();
    fillDisk(s);
    const w = await s.queue.acceptInbound({ ...msg, text: 'y'.repeat(20_000) }, { now: 1, maxPending: 10 });
    expect(w).toMatchObject({ ok: false, reason: 'full', retryable: true });
    expect(w).not.toHaveProperty('errcode');
    expect(await s.queue.countPending('console:local')).toBe(0);
  });

  it('a read that hits an SQLite error rejects with a StoreError, not ERR_SQLITE_ERROR', async () => {
    const { store: s } = await fresh();
    handle?.exec('DROP TABLE inbox');
    const err = await s.queue.countPending('console:local').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect(err).toMatchObject({ reason: 'other', retryable: false });
    expect(err).not.toHaveProperty('errcode');
    expect((err as { code?: unknown }).code).not.toBe('ERR_SQLITE_ERROR');
  });

  it('a read-only file: writes are refused as unavailable (retryable), at every port', async () => {
    const { store: s, file } = await fresh();
    await s.close();
    const ro = new DatabaseSync(file, { readOnly: true });
    store = storeOver(ro);
    const w = await store.queue.acceptInbound(msg, { now: 1, maxPending: 10 });
    expect(w).toMatchObject({ ok: false, reason: 'unavailable', retryable: true });
    const err = await store.jobStates
      .save('heartbeat', { fingerprint: 'f', failureStreak: 0, attempts: 0, done: false }, 1)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect(err).toMatchObject({ reason: 'unavailable', retryable: true });
    expect(await store.queue.countPending('console:local')).toBe(0);
  });
});

describe('read-only readers', () => {
  it('read nothing from a missing file, and call an unreadable one unreadable', async () => {
    const dir = tempDir('aw-ports-');
    expect(await readStatusFile(join(dir, 'none.db'))).toBeUndefined();
    expect(await readWhatsAppCredsFile(join(dir, 'none.db'))).toBeUndefined();
    writeFileSync(join(dir, 'junk.db'), 'this is not a database, just some text long enough to matter');
    expect(await readWhatsAppCredsFile(join(dir, 'junk.db'))).toBe('unreadable');
  });

  it('read the facts of a store written by another connection', async () => {
    const { store: s, file } = await fresh();
    await s.jobStates.save('schedule:x', { fingerprint: 'f', failureStreak: 0, attempts: 1, done: true }, 1);
    await s.whatsapp.auth.saveCreds('{}', 1);
    await s.whatsapp.auth.markLoggedOut(9);
    const facts = await readStatusFile(file);
    expect(facts?.jobStates.get('schedule:x')?.done).toBe(true);
    expect(facts?.whatsappCreds).toEqual({ data: '{}', loggedOutAt: 9 });
    expect(facts?.pending).toEqual({});
  });
});
