// Which turn endings make the wrapper end the turn's processes: a stop (/stop, the signal) or the
// time limit, never a turn that ended on its own or failed otherwise (a broken process is closed,
// and everything carrying its mark ends with it then).
import { describe, expect, it } from 'vitest';
import type { AgentResult } from '../../src/agents/types.js';
import { wasStopped } from '../../src/drivers/stopped-turn.js';

const ok: AgentResult = { type: 'ok', text: 'hi', progress: [], media: [], truncated: false, durationMs: 1 };
const err = (kind: Extract<AgentResult, { type: 'error' }>['kind']): AgentResult => ({
  type: 'error',
  kind,
  message: 'x',
  durationMs: 1,
});
const aborted = () => {
  const c = new AbortController();
  c.abort();
  return c.signal;
};

const ROWS: [string, AgentResult, AbortSignal | undefined, boolean][] = [
  ['answered', ok, undefined, false],
  ['timed out', err('timeout'), undefined, true],
  ['stopped (/stop)', err('aborted'), undefined, true],
  ['answered, but the signal was aborted meanwhile', ok, aborted(), true],
  ['the CLI died', err('exit'), undefined, false],
  ['the CLI spoke garbage', err('unparseable'), undefined, false],
  ['rate limited', err('rate_limit'), undefined, false],
];

describe('wasStopped', () => {
  it.each(ROWS)('%s', (_name, r, signal, want) => {
    expect(wasStopped(r, signal ? { signal } : {})).toBe(want);
  });
});
