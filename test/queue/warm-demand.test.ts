// What the queue tells the warm pool (queue/warm-demand.ts): which lanes' chats have work, and since when.
import { describe, expect, it } from 'vitest';
import type { ChatKey } from '../../src/core/types.js';
import { RunSlots } from '../../src/queue/run-slots.js';
import { Settling, warmDemand } from '../../src/queue/warm-demand.js';

const A = 'console:a' as ChatKey;
const B = 'console:b' as ChatKey;
const run = (startedAt: number) => ({
  kind: 'user' as const,
  label: 'm',
  ids: [],
  startedAt,
  controller: new AbortController(),
  done: Promise.resolve(),
});

describe('warmDemand', () => {
  it.each<[string, (l: RunSlots, s: Settling) => void, string, boolean]>([
    ['nothing waits', () => {}, A, false],
    ['messages wait (ready)', (l) => l.markReady(A), A, true],
    ['a run is under way (claim, downloads, the turn)', (l) => l.begin(A, run(1)), A, true],
    ['the run ended, its follow-up not decided yet', (_l, s) => s.add(A), A, true],
    ['another chat waits', (l) => l.markReady(B), A, false],
    [
      'a follow-up done while the next run of the same chat settles still counts',
      (_l, s) => {
        s.add(A);
        s.add(A);
        s.done(A);
      },
      A,
      true,
    ],
    [
      'both follow-ups done',
      (_l, s) => {
        s.add(A);
        s.done(A);
      },
      A,
      false,
    ],
  ])('per-chat: %s → %s', (_n, setup, lane, want) => {
    const runSlots = new RunSlots(4, () => 7);
    const settling = new Settling();
    setup(runSlots, settling);
    expect(warmDemand(runSlots, settling, 'per-chat').wanted(lane)).toBe(want);
  });

  it('one global session: its process is wanted while any chat has work', () => {
    const runSlots = new RunSlots(4, () => 7);
    const d = warmDemand(runSlots, new Settling(), 'global');
    expect(d.wanted('*')).toBe(false);
    runSlots.markReady(B);
    expect(d.wanted('*')).toBe(true);
    expect(d.wanted('own:job:console:b')).toBe(false);
    expect(d.since('*')).toBeUndefined();
  });

  it('since: when the chat became ready, kept through its run', () => {
    let t = 5;
    const runSlots = new RunSlots(4, () => t);
    const d = warmDemand(runSlots, new Settling(), 'per-chat');
    runSlots.markReady(A);
    t = 9;
    expect(d.since(A)).toBe(5);
    expect(runSlots.takeReady()).toBe(A);
    runSlots.begin(A, run(9));
    expect(d.since(A)).toBe(5);
  });
});
