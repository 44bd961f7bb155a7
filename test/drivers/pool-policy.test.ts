// The warm pool's pure decisions, as tables.
import { describe, expect, it } from 'vitest';
import type { AgentErrorKind, AgentResult } from '../../src/agents/types.js';
import { expired, isStartFailure, place, reuse, type Slot } from '../../src/drivers/pool-policy.js';
import type { DriverFault } from '../../src/drivers/types.js';

const slot = (lane: string, lastTurnAt: number, busy = false, reserved = false): Slot => ({
  lane,
  lastTurnAt,
  busy,
  reserved,
});

describe('place', () => {
  it.each<[string, Slot[], number, ReturnType<typeof place>]>([
    ['empty pool', [], 2, { type: 'open' }],
    ['under the cap', [slot('a', 1)], 2, { type: 'open' }],
    [
      'full: the least recently used idle one goes',
      [slot('a', 5), slot('b', 2), slot('c', 9)],
      3,
      { type: 'evict', lane: 'b' },
    ],
    [
      'full: a busy one is never closed, even if older',
      [slot('a', 1, true), slot('b', 7)],
      2,
      { type: 'evict', lane: 'b' },
    ],
    ['full and all busy: wait', [slot('a', 1, true), slot('b', 2, true)], 2, { type: 'wait' }],
    [
      'full: starting/closing ones are not taken',
      [slot('a', 1, false, true), slot('b', 2, true)],
      2,
      { type: 'wait' },
    ],
    [
      'over the cap (a lower cap): still evicts',
      [slot('a', 1), slot('b', 2)],
      1,
      { type: 'evict', lane: 'a' },
    ],
  ])('%s', (_name, slots, max, want) => {
    expect(place(slots, max)).toEqual(want);
  });
});

describe('expired', () => {
  it.each<[string, Slot[], number, string[]]>([
    ['none idle long enough', [slot('a', 50)], 100, []],
    ['exactly the idle time', [slot('a', 0)], 100, ['a']],
    ['busy never expires', [slot('a', 0, true)], 100, []],
    ['reserved never expires', [slot('a', 0, false, true)], 100, []],
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
