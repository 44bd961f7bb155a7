// One outbox row to its channel (queue/deliver-item.ts), on a real store: an edit or reaction goes
// out with the provider's id of the message agentwire's id names, and is refused for good when it
// cannot be made; a card goes as buttons where the channel has them, and as text when it has none or
// the provider refuses the buttons for good. The channel is the far edge: a recording fake.
import { afterEach, describe, expect, it } from 'vitest';
import type { Channel } from '../../src/channels/types.js';
import type { OutboxItem, SendResult } from '../../src/core/types.js';
import { deliverItem } from '../../src/queue/deliver-item.js';
import { openStore, type Store } from '../../src/store/open.js';
import { tempDir } from '../helpers/tmp.js';
import { inbound } from '../store/helpers.js';

const CHAT = 'console:local' as const;
let open: Store | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

function fakeChannel(over: Partial<Channel> = {}) {
  const calls: unknown[][] = [];
  const ok: SendResult = { ok: true, providerId: 'P' };
  const channel: Channel = {
    name: 'console',
    textLimit: 4000,
    start: async () => undefined,
    stop: async () => undefined,
    status: () => ({ type: 'connected', since: 0 }),
    send: async (...a) => {
      calls.push(['send', ...a.slice(0, 2)]);
      return ok;
    },
    edit: async (...a) => {
      calls.push(['edit', ...a]);
      return ok;
    },
    react: async (...a) => {
      calls.push(['react', ...a]);
      return ok;
    },
    delete: async (...a) => {
      calls.push(['delete', ...a]);
      return ok;
    },
    ...over,
  };
  return { channel, calls };
}

async function setup() {
  open = await openStore({ engine: 'sqlite', stateDir: tempDir('aw-deliver-item-') });
  const s = open;
  const r = await s.queue.acceptInbound(inbound({ messageId: 'p7' }), { now: 1, maxPending: 10 });
  const inId = r.ok && r.value.type === 'stored' ? r.value.id : 0;
  await s.queue.enqueueReply(CHAT, 'k:msg', [{ type: 'text', text: 'draft' }], 1);
  const out = (await s.queue.outboxIdOf('k:msg'))!;
  return { s, inId, out };
}

describe('deliverItem', () => {
  it("an edit uses the sent message's provider id; a reaction the received message's", async () => {
    const { s, inId, out } = await setup();
    const f = fakeChannel();
    const row = (await s.queue.nextUnsent(CHAT))!;
    await s.queue.markChunkSent(row.id, 2, 'P500');
    const send = (item: OutboxItem) => deliverItem(s.queue, f.channel, CHAT, 'local', item, undefined);
    expect(await send({ type: 'edit', ref: `out:${out}`, text: 'final' })).toMatchObject({ ok: true });
    expect(await send({ type: 'react', ref: `in:${inId}`, emoji: '👍' })).toMatchObject({ ok: true });
    expect(await send({ type: 'delete', ref: `out:${out}` })).toMatchObject({ ok: true });
    expect(f.calls).toEqual([
      ['edit', 'local', 'P500', 'final'],
      ['react', 'local', 'p7', '👍'],
      ['delete', 'local', 'P500'],
    ]);
  });

  it.each<
    [string, (ids: { out: number; inId: number }) => OutboxItem, Partial<Channel>, Partial<SendResult>]
  >([
    [
      'an edit on a channel without edit',
      ({ out }) => ({ type: 'edit', ref: `out:${out}`, text: 'x' }),
      { edit: undefined },
      { ok: false, retryable: false, error: 'this channel cannot edit messages' },
    ],
    [
      'a deletion on a channel without delete',
      ({ out }) => ({ type: 'delete', ref: `out:${out}` }),
      { delete: undefined },
      { ok: false, retryable: false, code: 'unsupported', error: 'this channel cannot delete messages' },
    ],
    [
      "a deletion of the person's message",
      ({ inId }) => ({ type: 'delete', ref: `in:${inId}` }),
      {},
      { ok: false, retryable: false, code: 'not_own' },
    ],
    [
      "an edit of the person's message",
      ({ inId }) => ({ type: 'edit', ref: `in:${inId}`, text: 'x' }),
      {},
      { ok: false, retryable: false, code: 'not_own' },
    ],
    [
      'a message not sent yet: tried again later',
      ({ out }) => ({ type: 'react', ref: `out:${out}`, emoji: '👍' }),
      {},
      { ok: false, retryable: true, code: 'not_sent' },
    ],
    [
      'an id of nothing',
      () => ({ type: 'react', ref: 'out:999', emoji: '👍' }),
      {},
      { ok: false, retryable: false, code: 'no_message' },
    ],
  ])('%s', async (_n, item, over, want) => {
    const { s, inId, out } = await setup();
    const f = fakeChannel(over);
    expect(
      await deliverItem(s.queue, f.channel, CHAT, 'local', item({ out, inId }), undefined),
    ).toMatchObject(want);
    expect(f.calls).toEqual([]);
  });

  it("another chat's message is no message here", async () => {
    const { s, out } = await setup();
    const f = fakeChannel();
    const r = await deliverItem(
      s.queue,
      f.channel,
      'console:other',
      'other',
      { type: 'react', ref: `out:${out}`, emoji: '👍' },
      undefined,
    );
    expect(r).toMatchObject({ ok: false, retryable: false, code: 'no_message' });
    expect(f.calls).toEqual([]);
  });

  it('a card: buttons where the channel has them; text without, or when they are refused for good', async () => {
    const { s } = await setup();
    const card = { title: 'Deploy?', body: '', buttons: ['Yes', 'No'] };
    const text = { type: 'text', text: 'Deploy?\n\n1. Yes\n2. No\n\nAnswer with a number.' };
    const none = fakeChannel();
    expect(
      await deliverItem(s.queue, none.channel, CHAT, 'local', { type: 'card', card }, undefined),
    ).toMatchObject({ ok: true });
    expect(none.calls).toEqual([['send', 'local', text]]);

    const refused = fakeChannel({
      sendCard: async () => ({ ok: false, error: 'Telegram 400', retryable: false, code: '400' }),
    });
    expect(
      await deliverItem(s.queue, refused.channel, CHAT, 'local', { type: 'card', card }, undefined),
    ).toMatchObject({ ok: true });
    expect(refused.calls).toEqual([['send', 'local', text]]);

    const down = fakeChannel({ sendCard: async () => ({ ok: false, error: 'network', retryable: true }) });
    expect(
      await deliverItem(s.queue, down.channel, CHAT, 'local', { type: 'card', card }, undefined),
    ).toMatchObject({ ok: false, retryable: true });
    expect(down.calls).toEqual([]);
  });
});
