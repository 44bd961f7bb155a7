// Which ready chat a free run slot takes (queue/affinity.ts), as a table.
import { describe, expect, it } from 'vitest';
import type { ChatKey } from '../../src/core/types.js';
import { nextChat, type ReadyChat } from '../../src/queue/affinity.js';

const r = (chat: string, since: number, live = false): ReadyChat => ({ chat: chat as ChatKey, since, live });

describe('nextChat', () => {
  it.each<[string, ReadyChat[], number, string | undefined]>([
    ['nobody ready', [], 100, undefined],
    ['one ready, no process', [r('a', 90)], 100, 'a'],
    ['the longest waiting has a live process: it goes', [r('a', 90, true), r('b', 95, true)], 100, 'a'],
    ['a chat with a live process goes before an older one without', [r('a', 80), r('b', 95, true)], 100, 'b'],
    ['the oldest of the live ones', [r('a', 80), r('b', 90, true), r('c', 85, true)], 100, 'b'],
    ['none live: the longest waiting', [r('a', 80), r('b', 70)], 100, 'a'],
    [
      'the fair wait is over for the oldest: it goes, live ones or not',
      [r('a', 60), r('b', 95, true)],
      100,
      'a',
    ],
    ['exactly at the fair wait', [r('a', 70), r('b', 95, true)], 100, 'a'],
    ['one ms before it: the live one', [r('a', 71), r('b', 95, true)], 100, 'b'],
  ])('%s', (_n, ready, now, want) => {
    expect(nextChat(ready, now, 30)).toBe(want);
  });
});
