// The warm pool's pure decisions, as tables.
import { describe, expect, it } from 'vitest';
import type { AgentErrorKind, AgentResult } from '../../src/agents/types.js';
import {
  type Ask,
  expectBytes,
  expired,
  isStartFailure,
  overLimit,
  place,
  reuse,
  SAMPLE_EVERY_MS,
  type Slot,
  sampleDue,
} from '../../src/drivers/pool-policy.js';
import type { DriverFault } from '../../src/drivers/types.js';

const MB = 1024 * 1024;
const slot = (
  key: string,
  lastTurnAt: number,
  busy = false,
  reserved = false,
  more: Partial<Slot> = {},
): Slot => ({
  key,
  lastTurnAt,
  busy,
  reserved,
  expectBytes: 100 * MB,
  ...more,
});
/** An idle process whose chat has work waiting in the queue. */
const held = (key: string, lastTurnAt: number, more: Partial<Slot> = {}) =>
  slot(key, lastTurnAt, false, false, { wanted: true, ...more });
const ask = (maxProcesses: number, more: Partial<Ask> = {}): Ask => ({
  maxProcesses,
  maxMemoryBytes: Number.POSITIVE_INFINITY,
  expectBytes: 100 * MB,
  since: 100,
  now: 100,
  fairWaitMs: 30,
  ...more,
});

describe('place', () => {
  it.each<[string, Slot[], Ask, ReturnType<typeof place>]>([
    ['empty pool', [], ask(2), { type: 'open' }],
    ['under the cap', [slot('a', 1)], ask(2), { type: 'open' }],
    [
      'full: the least recently used idle one goes',
      [slot('a', 5), slot('b', 2), slot('c', 9)],
      ask(3),
      { type: 'evict', key: 'b' },
    ],
    [
      'full: a busy one is never closed, even if older',
      [slot('a', 1, true), slot('b', 7)],
      ask(2),
      { type: 'evict', key: 'b' },
    ],
    [
      'full and all busy: wait',
      [slot('a', 1, true), slot('b', 2, true)],
      ask(2),
      { type: 'wait', until: 130 },
    ],
    [
      'full: starting/closing ones are not taken',
      [slot('a', 1, false, true), slot('b', 2, true)],
      ask(2),
      { type: 'wait', until: 130 },
    ],
    [
      'over the cap (a lower cap): still evicts',
      [slot('a', 1), slot('b', 2)],
      ask(1),
      { type: 'evict', key: 'a' },
    ],
    // No thrash: a process whose chat has work waiting is not idle.
    [
      'full: the LRU process has work waiting, so the next one goes',
      [held('a', 1), slot('b', 5), held('c', 3)],
      ask(3),
      { type: 'evict', key: 'b' },
    ],
    [
      'full, every idle process has work waiting: the new chat waits, until its fair wait ends',
      [held('a', 1), held('b', 2), slot('c', 3, true)],
      ask(3, { since: 90, now: 100 }),
      { type: 'wait', until: 120 },
    ],
    [
      'past the fair wait: the LRU process whose chat had a turn since the new one began waiting',
      [held('a', 95), held('b', 110), held('c', 80)],
      ask(3, { since: 90, now: 125 }),
      { type: 'evict', key: 'a' },
    ],
    [
      'past the fair wait, served since only while busy: the served idle one, not the busy',
      [slot('a', 120, true, false, { wanted: true }), held('b', 110), held('c', 80)],
      ask(3, { since: 90, now: 125 }),
      { type: 'evict', key: 'b' },
    ],
    [
      'past the fair wait, nobody served since but a turn runs: wait for it',
      [held('a', 50), held('b', 60), slot('c', 70, true, false, { wanted: true })],
      ask(3, { since: 90, now: 200 }),
      { type: 'wait' },
    ],
    [
      'past the fair wait, nobody served since and no turn runs or starts: the LRU idle one (nothing else would end the wait)',
      [held('a', 50), held('b', 40)],
      ask(2, { since: 90, now: 200 }),
      { type: 'evict', key: 'b' },
    ],
    [
      'within the fair wait, nobody in a turn: still waits (a run between claim and turn is coming)',
      [held('a', 50), held('b', 40)],
      ask(2, { since: 90, now: 100 }),
      { type: 'wait', until: 120 },
    ],
    // Memory: the budget as well as the count.
    [
      'under the count, over the budget: the LRU idle one goes',
      [
        slot('a', 5, false, false, { rssBytes: 300 * MB }),
        slot('b', 2, false, false, { rssBytes: 300 * MB }),
      ],
      ask(8, { maxMemoryBytes: 650 * MB, expectBytes: 100 * MB }),
      { type: 'evict', key: 'b' },
    ],
    [
      'within the budget: opens',
      [
        slot('a', 5, false, false, { rssBytes: 300 * MB }),
        slot('b', 2, false, false, { rssBytes: 200 * MB }),
      ],
      ask(8, { maxMemoryBytes: 600 * MB, expectBytes: 100 * MB }),
      { type: 'open' },
    ],
    [
      'an unmeasured (starting) process counts as its expected size',
      [
        slot('a', 5, false, true, { expectBytes: 500 * MB }),
        slot('b', 2, false, false, { rssBytes: 100 * MB }),
      ],
      ask(8, { maxMemoryBytes: 650 * MB, expectBytes: 100 * MB }),
      { type: 'evict', key: 'b' },
    ],
    [
      'over the budget and every idle process has work waiting: waits',
      [held('a', 5, { rssBytes: 400 * MB }), held('b', 2, { rssBytes: 200 * MB })],
      ask(8, { maxMemoryBytes: 650 * MB, expectBytes: 100 * MB }),
      { type: 'wait', until: 130 },
    ],
    [
      'a budget smaller than one process: the first still starts',
      [],
      ask(8, { maxMemoryBytes: 50 * MB, expectBytes: 600 * MB }),
      { type: 'open' },
    ],
  ])('%s', (_name, slots, a, want) => {
    expect(place(slots, a)).toEqual(want);
  });
});

describe('overLimit: a process above its own limit is recycled between turns', () => {
  it.each<[number | undefined, number, boolean]>([
    [undefined, 100, false],
    [100, 100, false],
    [101, 100, true],
  ])('%s of %s → %s', (rss, max, want) => {
    expect(overLimit(rss, max)).toBe(want);
  });
});

describe('sampleDue: a process is read again once its last read is old enough', () => {
  it.each<[string, number | undefined, number, boolean]>([
    ['never read', undefined, 0, true],
    ['read just now', 5000, 5000, false],
    ['read a hair less than the interval ago', 5000, 5000 + SAMPLE_EVERY_MS - 1, false],
    ['read exactly the interval ago', 5000, 5000 + SAMPLE_EVERY_MS, true],
    ['read long ago', 5000, 50_000, true],
    ['the clock went back: read again rather than trust it', 5000, 4000, true],
  ])('%s', (_n, lastAt, now, want) => {
    expect(sampleDue(lastAt, now)).toBe(want);
  });
});

describe('expectBytes: what a new process is expected to hold', () => {
  it.each<[string, number | undefined, number]>([
    ['claude, never measured: the table', undefined, 290 * MB],
    ['claude, measured here: the measurement', 123 * MB, 123 * MB],
  ])('%s', (_n, measured, want) => {
    expect(expectBytes('claude', measured)).toBe(want);
  });
  it('an agent we never measured counts as a large one', () => {
    expect(expectBytes('my-acp-agent', undefined)).toBe(600 * MB);
  });
});

describe('expired', () => {
  it.each<[string, Slot[], number, string[]]>([
    ['none idle long enough', [slot('a', 50)], 100, []],
    ['exactly the idle time', [slot('a', 0)], 100, ['a']],
    ['busy never expires', [slot('a', 0, true)], 100, []],
    ['reserved never expires', [slot('a', 0, false, true)], 100, []],
    ['a process whose chat has work waiting never expires', [held('a', 0)], 100, []],
    ['several', [slot('a', 0), slot('b', 99), slot('c', 10)], 100, ['a', 'c']],
  ])('%s', (_n, slots, idleMs, want) => {
    expect(expired(slots, 110, idleMs)).toEqual(want);
  });
});

describe('reuse', () => {
  const live = { kind: 'codex' as const, settings: 's', sessionId: 'T1', usable: true };
  it.each<[string, Partial<typeof live>, Parameters<typeof reuse>[3], string, boolean]>([
    ['same session, same settings', {}, { type: 'resume', id: 'T1' }, 's', true],
    ['a new session (/new, or a first message)', {}, { type: 'new' }, 's', false],
    ['a new session with a chosen id', {}, { type: 'new', id: 'T1' }, 's', false],
    ['another session', {}, { type: 'resume', id: 'T2' }, 's', false],
    ['other settings (model, thinking)', {}, { type: 'resume', id: 'T1' }, 'other', false],
    ['a broken or busy process', { usable: false }, { type: 'resume', id: 'T1' }, 's', false],
    ['another CLI', { kind: 'pi' as never }, { type: 'resume', id: 'T1' }, 's', false],
  ])('%s', (_n, over, session, settings, want) => {
    expect(reuse({ ...live, ...over }, 'codex', settings, session)).toBe(want);
  });
});

describe('isStartFailure: run cold from now on, or hand the error back', () => {
  const err = (kind: AgentErrorKind): Extract<AgentResult, { type: 'error' }> => ({
    type: 'error',
    kind,
    message: 'm',
    durationMs: 0,
  });
  const exited: DriverFault = { type: 'exited', exitCode: 2, signal: null };
  const startFailed: DriverFault = { type: 'start_failed', detail: 'ENOENT' };
  it.each<[string, AgentErrorKind, DriverFault | undefined, boolean]>([
    ['not installed (spawn ENOENT)', 'not_installed', startFailed, true],
    ['exits at once (unknown flag, old version)', 'exit', exited, true],
    ['speaks no protocol (garbage to the hello)', 'unparseable', { type: 'garbage', detail: 'x' }, true],
    ['never answers the hello', 'timeout', { type: 'unresponsive', what: 'initialize' }, true],
    ['spawn failed (bad working folder)', 'exit', startFailed, true],
    ['the stored session is gone', 'session_not_found', exited, false],
    ['the session is gone, process fine', 'session_not_found', undefined, false],
    ['bad credentials', 'auth', undefined, false],
    ['rate limited', 'rate_limit', undefined, false],
    ['overloaded', 'overloaded', undefined, false],
    ['stopped by the owner while starting', 'aborted', undefined, false],
    ['an error answer to the session request (bad model)', 'exit', undefined, false],
  ])('%s → %s', (_n, kind, fault, want) => {
    expect(isStartFailure(err(kind), fault)).toBe(want);
  });
});
