// The ProgressPort over the outbox (queue/progress-outbox.ts) on a real SQLite store and the real
// Deliverer, with a channel that records edits: the status message is a row sent once per attempt,
// an update resolves only once its edit was delivered (so the feed keeps the newest line meanwhile),
// a status edit that keeps failing is given up after a few tries and never holds the answer back,
// and a recovery finishes a dead run's status message as interrupted, once.

import { afterEach, describe, expect, it } from 'vitest';
import { channelCapabilities } from '../../src/channels/registry.js';
import type { ChatKey, SendResult } from '../../src/core/types.js';
import { Deliverer } from '../../src/queue/delivery.js';
import {
  INTERRUPTED_TEXT,
  outboxProgress,
  STATUS_TRIES,
  statusKey,
} from '../../src/queue/progress-outbox.js';
import { interruptStatuses } from '../../src/queue/progress-recovery.js';
import type { InboxRow } from '../../src/store/contract/inbox.js';
import { sqliteQueueStore } from '../../src/store/sqlite/queue-sqlite.js';
import { tempDb } from '../store/helpers.js';
import { FakeChannel, memoryLog } from './helpers.js';

class EditingChannel extends FakeChannel {
  readonly edits: { id: string; text: string }[] = [];
  failEdits: SendResult[] = [];
  edit = async (_chatId: string, id: string, text: string): Promise<SendResult> => {
    const f = this.failEdits.shift();
    if (f) return f;
    this.edits.push({ id, text });
    return { ok: true, providerId: id };
  };
  readonly deleted: string[] = [];
  delete = async (_chatId: string, id: string): Promise<SendResult> => {
    this.deleted.push(id);
    return { ok: true };
  };
}

let t: ReturnType<typeof tempDb> | undefined;
let d: Deliverer | undefined;
afterEach(() => {
  d?.stop();
  t?.cleanup();
  t = d = undefined;
});

const chat = 'console:local' as ChatKey;

function rig(canDelete = false) {
  t = tempDb();
  const store = sqliteQueueStore(t.db);
  const channel = new EditingChannel('console');
  d = new Deliverer(store, new Map([['console', channel]]), memoryLog().log, Date.now, {
    retryForMs: 24 * 3_600_000,
    backoffMs: () => 0,
    waitMs: 0,
  });
  const deliverer = d;
  const port = outboxProgress({
    store,
    editInterval: () => 1000,
    canDelete: () => canDelete,
    now: Date.now,
    settleMs: 10_000,
  });
  port.bind({ kick: (c) => deliverer.kick(c), settled: (id, ms) => deliverer.settled(id, ms) });
  return { store, channel, port, deliverer };
}

describe('the outbox ProgressPort', () => {
  it('sends the status message once per attempt; each update resolves once its edit is delivered', async () => {
    const { store, channel, port, deliverer } = rig();
    const run = { chat, key: statusKey(7, 1) };
    await port.start(run, 'reading a.ts');
    // The same attempt started again (a run requeued, not crashed): no second message.
    await port.start(run, 'reading a.ts');
    await port.update(run, 'running `npm test`');
    // Delivered by the time update resolved: the feed's next line is never queued behind it.
    expect(channel.edits).toEqual([{ id: 'p1', text: 'running `npm test`' }]);
    await port.finish(run, { type: 'summary', text: '2 tools, 3 s' });
    expect(channel.edits.at(-1)).toEqual({ id: 'p1', text: '2 tools, 3 s' });
    await deliverer.idle();
    expect(channel.texts()).toEqual(['reading a.ts']);
    // A waiter that comes after its row went is not left to its timeout (the test's own would end it).
    const first = await store.outboxIdOf(run.key);
    await deliverer.settled(first!, 60_000);
  });

  it('progressEnd delete: the status message is deleted once, through the outbox, after its edits', async () => {
    const { store, channel, port, deliverer } = rig(true);
    const run = { chat, key: statusKey(9, 1) };
    await port.start(run, 'reading a.ts');
    await port.update(run, 'reading b.ts');
    await port.finish(run, { type: 'delete', text: '2 tools, 3 s' });
    expect(channel.deleted).toEqual(['p1']);
    expect(channel.edits.map((e) => e.text)).toEqual(['reading b.ts']);
    // A durable, keyed row: the same attempt finishing again (a redo) writes no second deletion.
    const row = await store.outboxIdOf(`${run.key}:delete`);
    expect(row).toBeDefined();
    await port.start(run, 'reading a.ts');
    await port.finish(run, { type: 'delete', text: '2 tools, 3 s' });
    await deliverer.idle();
    expect(channel.deleted).toEqual(['p1']);
    expect(channel.texts()).toEqual(['reading a.ts']);
  });

  it('progressEnd delete where the channel cannot delete: the message ends on the summary', async () => {
    const { channel, port, deliverer } = rig(false);
    const run = { chat, key: statusKey(10, 1) };
    await port.start(run, 'reading a.ts');
    await port.finish(run, { type: 'delete', text: '1 tool, 2 s' });
    await deliverer.idle();
    expect(channel.deleted).toEqual([]);
    expect(channel.edits).toEqual([{ id: 'p1', text: '1 tool, 2 s' }]);
  });

  it('a status edit that keeps failing is given up after a few tries; the answer behind it still goes', async () => {
    const { store, channel, port, deliverer } = rig();
    const run = { chat, key: statusKey(8, 1) };
    await port.start(run, 'working');
    const down: SendResult = { ok: false, error: 'Too Many Requests', retryable: true, code: '429' };
    channel.failEdits = Array.from({ length: STATUS_TRIES + 5 }, () => down);
    await port.update(run, 'reading b.ts');
    expect(channel.failEdits).toHaveLength(5);
    expect(channel.edits).toEqual([]);
    unwrapOk(await store.enqueueReply(chat, 'in:8', [{ type: 'text', text: 'the answer' }], Date.now()));
    deliverer.kick(chat);
    await deliverer.idle();
    expect(channel.texts()).toEqual(['working', 'the answer']);
  });

  it('of several status edits waiting (a restart, an outage), only the newest is sent; other edits all go', async () => {
    const { store, channel, port, deliverer } = rig();
    const run = { chat, key: statusKey(12, 1) };
    await port.start(run, 'working');
    await deliverer.idle();
    const ref = `out:${await store.outboxIdOf(run.key)}`;
    const edit = (text: string) => [{ type: 'edit' as const, ref, text }];
    for (const [key, text] of [
      [`${run.key}:e1`, 'reading a.ts'],
      [`${run.key}:e2`, 'reading b.ts'],
      ['tool:edit:1', 'an edit the agent made'],
      [`${run.key}:e3`, 'reading c.ts'],
    ] as const)
      unwrapOk(await store.enqueueReply(chat, key, edit(text), Date.now()));
    deliverer.kick(chat);
    await deliverer.idle();
    expect(channel.edits.map((e) => e.text)).toEqual(['an edit the agent made', 'reading c.ts']);
  });

  it('editIntervalMs: the platform floor where the channel edits, none where it cannot', () => {
    const store = {} as never;
    const editInterval = (c: string) => {
      const caps = channelCapabilities(c);
      return caps.edit ? caps.editIntervalMs : undefined;
    };
    const port = outboxProgress({ store, editInterval, canDelete: () => false, now: Date.now });
    expect(port.editIntervalMs('telegram:42' as ChatKey)).toBe(1500);
    expect(port.editIntervalMs('slack:D0DM00001' as ChatKey)).toBe(1500);
    expect(port.editIntervalMs('discord:555555555555555555' as ChatKey)).toBe(1500);
    expect(port.editIntervalMs('whatsapp:15550001111@s.whatsapp.net' as ChatKey)).toBe(2000);
    expect(port.editIntervalMs('twilio:+15550001111' as ChatKey)).toBeUndefined();
  });

  it("recovery edits a dead run's status message to interrupted, once, and leaves other rows alone", async () => {
    const { store, channel, port, deliverer } = rig();
    await port.start({ chat, key: statusKey(9, 1) }, 'running `make`');
    const row = (id: number, tries: number, status: InboxRow['status']) =>
      ({ id, chat, tries, status }) as InboxRow;
    const rows = [row(9, 1, 'running'), row(10, 1, 'running'), row(11, 0, 'pending')];
    expect(await interruptStatuses(store, rows, Date.now())).toBe(1);
    expect(await interruptStatuses(store, rows, Date.now())).toBe(0);
    deliverer.kick(chat);
    await deliverer.idle();
    expect(channel.edits).toEqual([{ id: 'p1', text: INTERRUPTED_TEXT }]);
  });
});

function unwrapOk<T>(w: { ok: true; value: T } | { ok: false; message: string }): T {
  if (!w.ok) throw new Error(w.message);
  return w.value;
}
