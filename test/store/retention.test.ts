// Retention: old message text leaves the store, the dedupe record stays long enough to stop a
// redelivery, and work still owed (pending or running) is never touched.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import { createLogger } from '../../src/log.js';
import { retentionService } from '../../src/store/retention-service.js';
import { channelStateStore } from '../../src/store/sqlite/channel-state.js';
import { getInbound, type InboxStatus, insertInbound } from '../../src/store/sqlite/inbox.js';
import { interactionStore } from '../../src/store/sqlite/interactions.js';
import { storeOver } from '../../src/store/sqlite/open.js';
import { enqueueOutbound, markFailed, markSent, rowsForKey } from '../../src/store/sqlite/outbox.js';
import { KEEP_IDS_DAYS, pruneStore } from '../../src/store/sqlite/retention.js';
import { inbound, tempDb } from './helpers.js';

let t: ReturnType<typeof tempDb>;
afterEach(() => t?.cleanup());

const DAY = 86_400_000;
const NOW = 1_000 * DAY;

function message(id: string, status: InboxStatus, ageDays: number): number {
  const r = insertInbound(
    t.db,
    inbound({ messageId: id, text: `secret body ${id}`, senderName: 'Alice', context: 'group ctx' }),
    { now: NOW - ageDays * DAY, status },
  );
  if (r.type !== 'inserted') throw new Error('not inserted');
  return r.id;
}

describe('pruneStore', () => {
  it.each([
    // status, age in days, messageDays → text kept?, row kept?
    ['done', 31, 30, false, true],
    ['failed', 31, 30, false, true],
    ['dropped', 31, 30, false, true],
    ['done', 29, 30, true, true],
    ['done', KEEP_IDS_DAYS + 1, 30, false, false],
    ['done', KEEP_IDS_DAYS + 1, KEEP_IDS_DAYS + 10, true, true],
    ['pending', 400, 30, true, true],
    ['running', 400, 30, true, true],
  ] as const)(
    '%s message %i days old, messageDays %i: text kept %s, row kept %s',
    (status, age, days, text, row) => {
      t = tempDb();
      const id = message('m1', status, age);
      pruneStore(t.db, NOW, days);
      const r = getInbound(t.db, id);
      expect(r !== undefined).toBe(row);
      if (!r) return;
      expect(r.text === 'secret body m1').toBe(text);
      expect(r.senderName === 'Alice').toBe(text);
      expect(r.context === 'group ctx').toBe(text);
      expect(r.status).toBe(status);
    },
  );

  it('a redelivered message within the id window is still a duplicate after its text is gone', () => {
    t = tempDb();
    message('m1', 'done', 60);
    expect(pruneStore(t.db, NOW, 30)).toEqual({ scrubbed: 1, replies: 0, deleted: 0, seen: 0, questions: 0 });
    expect(insertInbound(t.db, inbound({ messageId: 'm1' }), { now: NOW }).type).toBe('duplicate');
  });

  it('deletes closed questions and approvals past the window, never a pending one', async () => {
    t = tempDb();
    const s = interactionStore(t.db);
    const base = {
      chat: 'console:local' as const,
      type: 'approval' as const,
      runKey: 'in:1',
      asker: 'codex',
      text: 'run: secret',
    };
    const old = await s.add(base, NOW - 40 * DAY);
    await s.close(old.id, 'expired', NOW - 40 * DAY);
    const recent = await s.add(base, NOW - DAY);
    await s.close(recent.id, 'expired', NOW - DAY);
    const pending = await s.add(base, NOW - 400 * DAY);
    expect(pruneStore(t.db, NOW, 30).questions).toBe(1);
    expect(await s.get(old.id)).toBeUndefined();
    expect((await s.get(recent.id))?.status).toBe('expired');
    expect((await s.get(pending.id))?.status).toBe('pending');
  });

  it('deletes sent and failed reply chunks past the window, keeps pending and recent ones', () => {
    t = tempDb();
    const text = (s: string) => ({ type: 'text' as const, text: s });
    enqueueOutbound(t.db, 'console:local', 'old', [text('a'), text('b'), text('c')], NOW - 40 * DAY);
    const [a, b] = rowsForKey(t.db, 'old');
    markSent(t.db, a?.id as number, NOW - 40 * DAY);
    markFailed(t.db, b?.id as number, 'refused');
    enqueueOutbound(t.db, 'console:local', 'new', [text('d')], NOW - DAY);
    markSent(t.db, rowsForKey(t.db, 'new')[0]?.id as number, NOW - DAY);
    expect(pruneStore(t.db, NOW, 30).replies).toBe(2);
    expect(rowsForKey(t.db, 'old').map((r) => r.status)).toEqual(['pending']);
    expect(rowsForKey(t.db, 'new').map((r) => r.status)).toEqual(['sent']);
  });

  it('leaves no pruned text in the database file', () => {
    t = tempDb();
    message('m1', 'done', 60);
    pruneStore(t.db, NOW, 30);
    t.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    expect(readFileSync(t.file).includes('secret body m1')).toBe(false);
  });
});

describe('retentionService', () => {
  it('prunes when the relay starts', async () => {
    t = tempDb();
    const id = insertInbound(t.db, inbound({ messageId: 'm1', text: 'old text' }), {
      now: Date.now() - 31 * DAY,
      status: 'done',
    });
    const svc = retentionService.create({
      store: storeOver(t.db),
      config: configSchema.parse({}),
      log: createLogger({ level: 'silent' }),
    });
    const old = channelStateStore(t.db, 'pigeon', () => Date.now() - (KEEP_IDS_DAYS + 1) * DAY);
    await old.seen('update:1');
    const recent = channelStateStore(t.db, 'pigeon', () => Date.now() - DAY);
    await recent.seen('update:2');
    await svc.start();
    await svc.stop();
    expect(getInbound(t.db, id.type === 'inserted' ? id.id : -1)?.text).toBe('');
    // A channel's seen ids past the dedupe window are dropped; recent ones still dedupe.
    expect(await recent.seen('update:1')).toBe(false);
    expect(await recent.seen('update:2')).toBe(true);
  });
});
