import { execFile } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import {
  chatsWithPending,
  countPending,
  getInbound,
  insertInbound,
  markFinished,
  markPendingAgain,
  markRunning,
  pendingByChat,
  pendingForChat,
  unfinished,
} from '../../src/store/sqlite/inbox.js';
import { inbound, tempDb } from './helpers.js';

const run = promisify(execFile);
let t: ReturnType<typeof tempDb>;
afterEach(() => t?.cleanup());

describe('inbox', () => {
  it('stores a message once per (channel, messageId), also after reopening the file', () => {
    t = tempDb();
    const first = insertInbound(t.db, inbound(), { now: 1 });
    expect(first.type).toBe('inserted');
    expect(insertInbound(t.db, inbound({ text: 'other text' }), { now: 2 })).toEqual({ type: 'duplicate' });
    t.db.close();
    const db = t.reopen();
    expect(insertInbound(db, inbound(), { now: 3 })).toEqual({ type: 'duplicate' });
    // The same id on another channel is another message.
    expect(insertInbound(db, inbound({ channel: 'twilio', chatId: '+15551234567' }), { now: 3 }).type).toBe(
      'inserted',
    );
    const row = first.type === 'inserted' ? getInbound(db, first.id) : undefined;
    expect(row).toMatchObject({
      chat: 'console:local',
      text: 'hello',
      status: 'pending',
      tries: 0,
      receivedAt: 1,
    });
  });

  it('keeps the file private', () => {
    t = tempDb();
    expect(statSync(t.file).mode & 0o777).toBe(0o600);
  });

  it('walks pending → running → done with tries and timestamps', () => {
    t = tempDb();
    const ids = ['a', 'b', 'c'].map((m) => {
      const r = insertInbound(t.db, inbound({ messageId: m }), { now: 10 });
      return r.type === 'inserted' ? r.id : -1;
    });
    expect(pendingForChat(t.db, 'console:local').map((r) => r.messageId)).toEqual(['a', 'b', 'c']);
    expect(pendingForChat(t.db, 'console:local', 1).map((r) => r.messageId)).toEqual(['a']);
    markRunning(t.db, ids.slice(0, 2), 20);
    expect(countPending(t.db, 'console:local')).toBe(1);
    expect(getInbound(t.db, ids[0] as number)).toMatchObject({ status: 'running', tries: 1, startedAt: 20 });
    markFinished(t.db, [ids[0] as number], 'done', 30);
    markFinished(t.db, [ids[1] as number], 'failed', 31, 'timeout');
    expect(getInbound(t.db, ids[0] as number)).toMatchObject({ status: 'done', finishedAt: 30 });
    expect(getInbound(t.db, ids[1] as number)).toMatchObject({ status: 'failed', note: 'timeout' });
    expect(unfinished(t.db).map((r) => r.messageId)).toEqual(['c']);
    // One chat's: what a fresh lease recovers reads no other chat's rows.
    insertInbound(t.db, inbound({ messageId: 'd', chatId: 'other' }), { now: 40 });
    expect(unfinished(t.db).map((r) => r.messageId)).toEqual(['c', 'd']);
    expect(unfinished(t.db, 'console:local').map((r) => r.messageId)).toEqual(['c']);
  });

  it('puts an interrupted run back, spending or refunding the try', () => {
    t = tempDb();
    const r = insertInbound(t.db, inbound(), { now: 1 });
    const id = r.type === 'inserted' ? r.id : -1;
    markRunning(t.db, [id], 2);
    markPendingAgain(t.db, [id], false);
    expect(getInbound(t.db, id)).toMatchObject({ status: 'pending', tries: 1 });
    markRunning(t.db, [id], 3);
    markPendingAgain(t.db, [id], true);
    expect(getInbound(t.db, id)).toMatchObject({ status: 'pending', tries: 1 });
  });

  it('lists chats with waiting messages by their oldest message', () => {
    t = tempDb();
    insertInbound(t.db, inbound({ chatId: 'b', messageId: '1' }), { now: 1 });
    insertInbound(t.db, inbound({ chatId: 'a', messageId: '2' }), { now: 1 });
    insertInbound(t.db, inbound({ chatId: 'b', messageId: '3' }), { now: 1 });
    insertInbound(t.db, inbound({ chatId: 'c', messageId: '4' }), { now: 1, status: 'dropped' });
    expect(chatsWithPending(t.db)).toEqual(['console:b', 'console:a']);
    expect(pendingByChat(t.db)).toEqual({ 'console:b': 2, 'console:a': 1 });
  });

  it('stores media and group fields and reads them back', () => {
    t = tempDb();
    const media = [{ kind: 'image' as const, path: '/m/x.jpg', mimeType: 'image/jpeg', sizeBytes: 5 }];
    const r = insertInbound(t.db, inbound({ media, isGroup: true, senderName: 'Ann', context: 'ctx' }), {
      now: 1,
    });
    expect(r.type === 'inserted' && getInbound(t.db, r.id)).toMatchObject({
      media,
      isGroup: true,
      senderName: 'Ann',
      context: 'ctx',
    });
  });
});

// Separate processes racing on one file: the claim must be atomic in SQLite, not in our JS.
const dist = join(process.cwd(), 'dist/store/sqlite/inbox.js');
describe('inbox across processes (needs `npm run build`)', () => {
  it('eight simultaneous deliveries of one message make exactly one row', async () => {
    expect(existsSync(dist), 'build first: npm run build').toBe(true);
    t = tempDb();
    const script = `
      import { openDb } from ${JSON.stringify(join(process.cwd(), 'dist/store/sqlite/db.js'))};
      import { QUEUE_MIGRATIONS } from ${JSON.stringify(join(process.cwd(), 'dist/store/sqlite/queue-schema.js'))};
      import { insertInbound } from ${JSON.stringify(dist)};
      const db = openDb(process.argv[1], QUEUE_MIGRATIONS);
      const msg = { channel: 'twilio', chatId: '+15550001111', senderId: '+15550001111', messageId: 'SM1',
        text: 'hi', media: [], isGroup: false, mentioned: false, at: 1 };
      process.stdout.write(insertInbound(db, msg, { now: Date.now() }).type);`;
    const outs = await Promise.all(
      Array.from({ length: 8 }, () => run(process.execPath, ['--input-type=module', '-e', script, t.file])),
    );
    const types = outs.map((o) => o.stdout).sort();
    expect(types.filter((x) => x === 'inserted')).toHaveLength(1);
    expect(types.filter((x) => x === 'duplicate')).toHaveLength(7);
    expect(countPending(t.db, 'twilio:+15550001111')).toBe(1);
  });
});

describe('migrations across processes (needs `npm run build`)', () => {
  it('six processes opening a fresh file at once all succeed', async () => {
    t = tempDb();
    const fresh = join(t.dir, 'fresh.db');
    const script = `
      import { openDb } from ${JSON.stringify(join(process.cwd(), 'dist/store/sqlite/db.js'))};
      import { QUEUE_MIGRATIONS } from ${JSON.stringify(join(process.cwd(), 'dist/store/sqlite/queue-schema.js'))};
      openDb(process.argv[1], QUEUE_MIGRATIONS).close();
      process.stdout.write('ok');`;
    const outs = await Promise.all(
      Array.from({ length: 6 }, () => run(process.execPath, ['--input-type=module', '-e', script, fresh])),
    );
    expect(outs.map((o) => o.stdout)).toEqual(Array(6).fill('ok'));
  });
});
