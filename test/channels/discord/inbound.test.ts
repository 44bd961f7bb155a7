// The inbound pipeline with a real handler stand-in and the in-memory channel state: which chat a
// message belongs to (DMs, threads folded or not), and a message id handled once across instances.
import { describe, expect, it } from 'vitest';
import { Inbound, type InboundDeps } from '../../../src/channels/discord/inbound.js';
import type { NormalizedMessage } from '../../../src/channels/discord/normalize.js';
import { DiscordState } from '../../../src/channels/discord/state.js';
import { memoryStateStore } from '../../../src/channels/telegram/state.js';
import type { InboundMessage } from '../../../src/core/types.js';
import { memoryLog } from '../../queue/helpers.js';

const USER = '222222222222222222';
const GUILD = '444444444444444444';
const PARENT = '555555555555555555';
const THREAD = '565656565656565656';

function rig(threadSessions: boolean, store = memoryStateStore()) {
  const got: InboundMessage[] = [];
  const asked: string[] = [];
  const deps: InboundDeps = {
    gate: {
      allowFrom: [USER],
      guilds: [GUILD],
      groupAllowFrom: [USER],
      groupAlways: [],
      mentionPatterns: [],
    },
    state: new DiscordState(store),
    media: { dir: '/nonexistent', maxBytes: 1024, apiRoot: undefined },
    threadSessions,
    parentOf: async (id) => {
      asked.push(id);
      return id === THREAD ? PARENT : undefined;
    },
    notify: async () => {},
    reopened: () => {},
    log: memoryLog().log,
    // A refused store is returned at once (no retries), so a test sees the `failed` outcome.
    handlerRetryDelaysMs: [],
  };
  const inbound = new Inbound(deps);
  inbound.setHandler(async (m) => {
    got.push(m);
    return { type: 'stored', inboxId: got.length };
  });
  return { inbound, got, asked, store };
}

const msg = (o: Partial<NormalizedMessage>): NormalizedMessage => ({
  id: String(900000000000000000n + BigInt(Math.floor(Math.random() * 1e9))),
  channelId: THREAD,
  guildId: GUILD,
  senderId: USER,
  text: 'hi',
  mentionsBot: true,
  repliesToBot: false,
  attachments: [],
  at: 0,
  ...o,
});

describe('discord inbound', () => {
  it.each([
    ['a thread joins its parent by default', false, msg({}), PARENT],
    ['a thread is its own chat with threadSessions', true, msg({}), THREAD],
    ['a channel that is no thread is itself', false, msg({ channelId: PARENT }), PARENT],
    ['a DM is the person', false, msg({ guildId: undefined, channelId: '666666666666666666' }), `dm:${USER}`],
  ])('%s', async (_name, threads, m, chat) => {
    const r = rig(threads);
    await r.inbound.handle(m);
    expect(r.got.map((g) => g.chatId)).toEqual([chat]);
    expect(r.got[0]).toMatchObject({ isGroup: m.guildId !== undefined, messageId: m.id });
  });

  it('a DM remembers its channel, so a send to dm:<user> needs no lookup', async () => {
    const r = rig(false);
    await r.inbound.handle(msg({ guildId: undefined, channelId: '666666666666666666' }));
    expect(await new DiscordState(r.store).dmChannel(USER)).toBe('666666666666666666');
  });

  it('a message id handled once is dropped by the next instance on the same state (a restart)', async () => {
    const first = rig(false);
    const m = msg({});
    await first.inbound.handle(m);
    const second = rig(false, first.store);
    await second.inbound.load();
    await second.inbound.handle(m);
    await second.inbound.handle(msg({ text: 'new one' }));
    expect(first.got).toHaveLength(1);
    expect(second.got.map((g) => g.text)).toEqual(['new one']);
  });

  it('a message the store refused is not remembered: delivered again, it is handed on', async () => {
    const r = rig(false);
    let fail = true;
    r.inbound.setHandler(async (m) => {
      if (fail) return { type: 'failed', error: 'disk full' };
      r.got.push(m);
      return { type: 'stored', inboxId: 1 };
    });
    const m = msg({});
    await r.inbound.handle(m);
    fail = false;
    await r.inbound.handle(m);
    expect(r.got).toHaveLength(1);
  });
});
