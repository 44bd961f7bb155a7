// Which session a finished run leaves behind, and whether it counts as confirmed (known to exist).
import { describe, expect, it } from 'vitest';
import type { AgentResult, SessionRef } from '../../src/agents/types.js';
import { type ExecuteOutcome, sessionToKeep } from '../../src/queue/execute.js';
import { fail, ok } from './helpers.js';

const out = (session: SessionRef, result: AgentResult): Extract<ExecuteOutcome, { type: 'ran' }> => ({
  type: 'ran',
  agent: 'claude',
  cwd: '/w',
  result,
  session,
  scope: 'console:local',
  generation: 0,
  contextReset: false,
});

describe('sessionToKeep', () => {
  it.each<[string, SessionRef, AgentResult, ReturnType<typeof sessionToKeep>]>([
    [
      'new relay id, run ok',
      { type: 'new', id: 'u1' },
      ok('hi', { sessionId: 'u1' }),
      { id: 'u1', confirmed: true },
    ],
    // The runner reports the relay's own id even when the CLI failed before saving the session.
    [
      'new relay id, auth failure',
      { type: 'new', id: 'u1' },
      fail('auth', 'x', { sessionId: 'u1' }),
      { id: 'u1', confirmed: false },
    ],
    [
      'new relay id, network error',
      { type: 'new', id: 'u1' },
      fail('exit', 'x', { sessionId: 'u1' }),
      { id: 'u1', confirmed: false },
    ],
    [
      'new relay id, timed out',
      { type: 'new', id: 'u1' },
      fail('timeout', 'x', { sessionId: 'u1' }),
      { id: 'u1', confirmed: false },
    ],
    [
      'new relay id, no id reported',
      { type: 'new', id: 'u1' },
      fail('exit', 'x'),
      { id: 'u1', confirmed: false },
    ],
    [
      'new CLI id, run ok',
      { type: 'new' },
      ok('hi', { sessionId: 'thread-1' }),
      { id: 'thread-1', confirmed: true },
    ],
    [
      'new CLI id, failed with id',
      { type: 'new' },
      fail('exit', 'x', { sessionId: 'thread-1' }),
      { id: 'thread-1', confirmed: false },
    ],
    ['new CLI id, failed without id', { type: 'new' }, fail('auth', 'x'), undefined],
    ['resume, ok', { type: 'resume', id: 'r1' }, ok('hi'), { id: 'r1', confirmed: true }],
    ['resume, failed', { type: 'resume', id: 'r1' }, fail('rate_limit', 'x'), { id: 'r1', confirmed: false }],
    [
      'resume, session gone',
      { type: 'resume', id: 'r1' },
      fail('session_not_found', 'x', { sessionId: 'r1' }),
      undefined,
    ],
  ])('%s', (_name, session, result, want) => {
    expect(sessionToKeep(out(session, result))).toEqual(want);
  });
});
