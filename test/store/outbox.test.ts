import { afterEach, describe, expect, it } from 'vitest';
import type { OutboundItem } from '../../src/core/types.js';
import {
  chatsWithUnsent,
  countUnsent,
  enqueueExpiryNotice,
  enqueueOutbound,
  expiredStats,
  isExpiryNotice,
  markAttempt,
  markAttemptFailed,
  markExpired,
  markFailed,
  markSent,
  nextPending,
  rowsForKey,
} from '../../src/store/sqlite/outbox.js';
import { tempDb } from './helpers.js';

let t: ReturnType<typeof tempDb>;
afterEach(() => t?.cleanup());

const text = (s: string): OutboundItem => ({ type: 'text', text: s });

describe('outbox', () => {
  it('writes chunks under (key, idx) and never writes a key twice', () => {
    t = tempDb();
    expect(enqueueOutbound(t.db, 'console:local', 'in:1', [text('a'), text('b')], 1)).toBe(2);
    expect(enqueueOutbound(t.db, 'console:local', 'in:1', [text('A'), text('B'), text('C')], 2)).toBe(1);
    expect(rowsForKey(t.db, 'in:1').map((r) => (r.item as { text: string }).text)).toEqual(['a', 'b', 'C']);
  });

  it('a sent chunk is never pending again, even when its key is written again after a reopen', () => {
    t = tempDb();
    enqueueOutbound(t.db, 'console:local', 'in:1', [text('a'), text('b')], 1);
    const first = nextPending(t.db, 'console:local');
    expect(first?.idx).toBe(0);
    markSent(t.db, first?.id as number, 5, 'SM123');
    t.db.close();
    const db = t.reopen();
    enqueueOutbound(db, 'console:local', 'in:1', [text('a'), text('b')], 9);
    expect(nextPending(db, 'console:local')?.idx).toBe(1);
    expect(countUnsent(db)).toBe(1);
  });

  it('orders a chat by write order across keys and lists chats with unsent chunks', () => {
    t = tempDb();
    enqueueOutbound(t.db, 'twilio:+1555', 'in:2', [text('x')], 1);
    enqueueOutbound(t.db, 'console:local', 'cmd:3', [text('y')], 1);
    enqueueOutbound(t.db, 'twilio:+1555', 'in:1', [text('z')], 1);
    expect(chatsWithUnsent(t.db)).toEqual(['twilio:+1555', 'console:local']);
    expect(nextPending(t.db, 'twilio:+1555')?.key).toBe('in:2');
  });

  it('counts failed attempts and records a final failure', () => {
    t = tempDb();
    enqueueOutbound(t.db, 'console:local', 'k', [{ type: 'url', url: 'https://example.com/a.png' }], 1);
    const row = nextPending(t.db, 'console:local');
    expect(markAttemptFailed(t.db, row?.id as number, 'timeout', 10)).toBe(1);
    expect(markAttemptFailed(t.db, row?.id as number, 'timeout', 20)).toBe(2);
    markFailed(t.db, row?.id as number, 'rejected');
    expect(rowsForKey(t.db, 'k')[0]).toMatchObject({ status: 'failed', tries: 3, error: 'rejected' });
    expect(nextPending(t.db, 'console:local')).toBeUndefined();
  });

  it('remembers when the first send of a chunk began, across retries and a reopen', () => {
    t = tempDb();
    enqueueOutbound(t.db, 'console:local', 'in:1', [text('a')], 1);
    const row = nextPending(t.db, 'console:local');
    expect(row?.attemptAt).toBeUndefined();
    markAttempt(t.db, row?.id as number, 5);
    markAttemptFailed(t.db, row?.id as number, 'timeout', 7);
    markAttempt(t.db, row?.id as number, 9);
    t.db.close();
    expect(nextPending(t.reopen(), 'console:local')).toMatchObject({ attemptAt: 5, nextAt: 7 });
  });

  it('queues one expiry notice per chat while it waits, a new one after it went out, and counts expiries', () => {
    t = tempDb();
    const chat = 'twilio:+1555';
    enqueueOutbound(t.db, chat, 'in:1', [text('a'), text('b')], 1);
    const [a, b] = rowsForKey(t.db, 'in:1');
    markExpired(t.db, a?.id as number, 'down', 100);
    expect(enqueueExpiryNotice(t.db, chat, 'notice', 100)).toBe(true);
    markExpired(t.db, b?.id as number, 'down', 200);
    expect(enqueueExpiryNotice(t.db, chat, 'notice', 200)).toBe(false);
    // Another chat gets its own.
    expect(enqueueExpiryNotice(t.db, 'twilio:+1666', 'notice', 200)).toBe(true);
    const notice = nextPending(t.db, chat);
    expect(notice && isExpiryNotice(notice.key)).toBe(true);
    markSent(t.db, notice?.id as number, 300);
    expect(enqueueExpiryNotice(t.db, chat, 'notice', 400)).toBe(true);
    expect(expiredStats(t.db)).toEqual({ count: 2, lastAt: 200 });
    expect(rowsForKey(t.db, 'in:1').map((r) => r.status)).toEqual(['failed', 'failed']);
  });
});
