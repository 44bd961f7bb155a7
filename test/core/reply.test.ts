import { describe, expect, it } from 'vitest';
import type { AgentErrorKind, AgentResult } from '../../src/agents/types.js';
import { errorSentence, MAX_REPLY_CHUNKS, NOTICE, replyChunks, replyText } from '../../src/core/reply.js';

type Err = Extract<AgentResult, { type: 'error' }>;
const err = (kind: AgentErrorKind, message: string, extra: Partial<Err> = {}): Err => ({
  type: 'error',
  kind,
  message,
  durationMs: 1,
  ...extra,
});
const ok = (text: string, extra: Partial<Extract<AgentResult, { type: 'ok' }>> = {}): AgentResult => ({
  type: 'ok',
  text,
  progress: [],
  media: [],
  truncated: false,
  durationMs: 1,
  ...extra,
});

describe('errorSentence', () => {
  it.each<[Err, string]>([
    [err('timeout', 'claude timed out after 600 s.'), 'claude timed out after 600 s.'],
    [err('timeout', 'claude timed out after 5 s'), 'claude timed out after 5 s.'],
    [err('exit', '', { exitCode: 3 }), 'The agent (codex) exited with code 3.'],
    [err('exit', '', { exitCode: null, signal: 'SIGKILL' }), 'The agent (codex) was killed by SIGKILL.'],
    [
      err('exit', '{"type":"result","is_error":true}', { exitCode: 1 }),
      'The agent (codex) exited with code 1.',
    ],
    [
      err('exit', 'Error: boom\n    at Object.<anonymous> (/x/y.js:1:1)', { exitCode: 1 }),
      'The agent (codex) exited with code 1.',
    ],
    [err('exit', 'TypeError at foo (/a.js:1)', { exitCode: 2 }), 'The agent (codex) exited with code 2.'],
    [err('exit', 'Codex failed (exit code 3).', { exitCode: 3 }), 'Codex failed (exit code 3).'],
    [err('exit', '', { exitCode: 0 }), 'The agent (codex) exited with code 0.'],
    [err('not_installed', ''), 'The agent (codex) is not installed or not on PATH.'],
    [err('auth', 'x'.repeat(300)), 'The agent (codex) is not logged in or its credentials were refused.'],
    [err('unparseable', '[1,2]'), "The agent's output could not be read."],
    [err('rate_limit', 'Rate limited by the provider'), 'Rate limited by the provider.'],
  ])('%j → %j', (r, expected) => {
    expect(errorSentence(r, 'codex')).toBe(expected);
  });
});

describe('replyText', () => {
  const base = { agent: 'claude', hasMedia: false, contextReset: false };
  it.each<[string, AgentResult, typeof base, string]>([
    ['plain text, trimmed', ok('  hi  '), base, 'hi'],
    ['empty text is never an empty message', ok('  '), base, NOTICE.empty],
    [
      'empty text with media is just the media',
      ok('', { media: ['./a.png'] }),
      { ...base, hasMedia: true },
      '',
    ],
    ['truncated output says so', ok('partial', { truncated: true }), base, `partial\n\n${NOTICE.truncated}`],
    [
      'a context reset is announced first',
      ok('fresh'),
      { ...base, contextReset: true },
      `${NOTICE.contextReset}\n\nfresh`,
    ],
    [
      'an error is its sentence',
      err('exit', '', { exitCode: 7 }),
      base,
      'The agent (claude) exited with code 7.',
    ],
  ])('%s', (_n, r, opts, expected) => {
    expect(replyText(r, opts)).toBe(expected);
  });
});

describe('replyChunks', () => {
  it('caps a flood with a closing notice', () => {
    const chunks = replyChunks('word '.repeat(100_000), 100);
    expect(chunks.length).toBe(MAX_REPLY_CHUNKS);
    expect(chunks.at(-1)).toContain('Reply cut after 29 messages');
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(100);
  });

  it('keeps a reply within the cap whole', () => {
    expect(replyChunks('a b c', 100)).toEqual(['a b c']);
  });
});
