import { afterEach, describe, expect, it } from 'vitest';
import type { OutboundItem } from '../../src/core/types.js';
import {
  chatsWithUnsent,
  countUnsent,
  enqueueOutbound,
  markAttempt,
  markAttemptFailed,
  markFailed,
  markSent,
  nextPending,
  rowsForKey,
} from '../../src/store/outbox.js';
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
    expect(markAttemptFailed(t.db, row?.id as number, 'timeout')).toBe(1);
    expect(markAttemptFailed(t.db, row?.id as number, 'timeout')).toBe(2);
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
    markAttemptFailed(t.db, row?.id as number, 'timeout');
    markAttempt(t.db, row?.id as number, 9);
    t.db.close();
    expect(nextPending(t.reopen(), 'console:local')?.attemptAt).toBe(5);
  });
});
