// Who a stored message and a notification are for, when processes share the store: the key a
// `chat_ready` or `outbox` notification carries (the chat, and the process meant to act on it), and
// the process a chat is left to from its lease as the store read it with a stored message.
import { describe, expect, it } from 'vitest';
import type { ChatKey } from '../../src/core/types.js';
import { HeldElsewhere, leftTo } from '../../src/queue/held-elsewhere.js';
import { forMe, parseReadyKey, readyKey } from '../../src/queue/ready-key.js';
import type { LeaseSeen } from '../../src/store/queue-ops.js';

const CHAT: ChatKey = 'whatsapp:123@s.whatsapp.net';

describe('readyKey', () => {
  it.each([
    { chat: CHAT, holder: undefined, key: CHAT },
    { chat: CHAT, holder: 'p-1', key: `${CHAT}\np-1` },
    {
      chat: 'twilio:whatsapp:+15551234567' as ChatKey,
      holder: 'p-2',
      key: 'twilio:whatsapp:+15551234567\np-2',
    },
  ])('$key round-trips', ({ chat, holder, key }) => {
    expect(readyKey(chat, holder)).toBe(key);
    expect(parseReadyKey(key)).toEqual(holder ? { chat, holder } : { chat });
  });

  it.each([
    { key: CHAT, me: 'a', mine: true },
    { key: `${CHAT}\na`, me: 'a', mine: true },
    { key: `${CHAT}\nb`, me: 'a', mine: false },
    // An empty name names nobody: any process may act.
    { key: `${CHAT}\n`, me: 'a', mine: true },
  ])('$key is for $me: $mine', ({ key, me, mine }) => {
    expect(forMe(parseReadyKey(key), me)).toBe(mine);
  });
});

describe('leftTo', () => {
  const NOW = 1_000_000;
  /** An affinity that leaves the chat to its last runner unless it is this process or gone. */
  const affinity = {
    decide: (_c: ChatKey, last: { holder: string; lastSeen: number | undefined } | undefined) =>
      last && last.holder !== 'me' && last.lastSeen !== undefined
        ? { holder: last.holder, until: NOW + 5 }
        : undefined,
  };
  it.each<{
    name: string;
    seen: LeaseSeen;
    withAffinity: boolean;
    left: { holder: string; until: number } | undefined;
  }>([
    {
      name: 'held by another',
      seen: { type: 'held', holder: 'b', until: NOW + 9 },
      withAffinity: true,
      left: { holder: 'b', until: NOW + 9 },
    },
    {
      name: 'held by me',
      seen: { type: 'held', holder: 'me', until: NOW + 9 },
      withAffinity: true,
      left: undefined,
    },
    { name: 'free, never run', seen: { type: 'free' }, withAffinity: true, left: undefined },
    {
      name: 'free, last run by a live other',
      seen: { type: 'free', last: { holder: 'b', lastSeen: NOW } },
      withAffinity: true,
      left: { holder: 'b', until: NOW + 5 },
    },
    {
      name: 'free, last run by a gone other',
      seen: { type: 'free', last: { holder: 'b', lastSeen: undefined } },
      withAffinity: true,
      left: undefined,
    },
    {
      name: 'free, last run by me',
      seen: { type: 'free', last: { holder: 'me', lastSeen: NOW } },
      withAffinity: true,
      left: undefined,
    },
    {
      name: 'free, no affinity',
      seen: { type: 'free', last: { holder: 'b', lastSeen: NOW } },
      withAffinity: false,
      left: undefined,
    },
  ])('$name', ({ seen, withAffinity, left }) => {
    expect(leftTo('me', CHAT, seen, withAffinity ? affinity : undefined, NOW)).toEqual(left);
  });
});

describe('HeldElsewhere', () => {
  it("blocks until the holder's time, names it, and a chat found to be mine skips one read", () => {
    const h = new HeldElsewhere();
    h.set(CHAT, 100, 'b');
    expect([h.blocked(CHAT, 99), h.holderOf(CHAT, 99)]).toEqual([true, 'b']);
    expect([h.blocked(CHAT, 100), h.holderOf(CHAT, 100)]).toEqual([false, undefined]);
    h.toMe(CHAT);
    expect(h.blocked(CHAT, 0)).toBe(false);
    expect(h.takeMine(CHAT)).toBe(true);
    expect(h.takeMine(CHAT)).toBe(false);
    // Found held elsewhere after being named: the skip is gone.
    h.toMe(CHAT);
    h.set(CHAT, 100, 'c');
    expect(h.takeMine(CHAT)).toBe(false);
  });
});
