// What a spawn that failed through a launcher tells the chat (toAgentResult, pure): a launcher that
// went away while the CLI ran is not "could not be started", which would send the owner looking
// for a broken install.
import { describe, expect, it } from 'vitest';
import { getSpec } from '../../src/agents/registry.js';
import { toAgentResult } from '../../src/runner/run-command-reply.js';
import type { SpawnResult } from '../../src/runner/spawn.js';

const claude = getSpec('claude');
const inv = { argv: ['claude', '-p'] };

describe('toAgentResult for a run through a launcher', () => {
  it.each<[string, SpawnResult, string]>([
    [
      'the launcher died mid-run',
      {
        type: 'spawn_failed',
        message: 'launcher: the launcher exited (SIGKILL)',
        durationMs: 5,
        launcher: 'died',
      },
      "Claude Code was cut off mid-run because agentwire's launcher process stopped; send the message again.",
    ],
    [
      'the launcher could not start',
      { type: 'spawn_failed', message: 'launcher: the launcher is not running', durationMs: 5 },
      'Claude Code could not be started.',
    ],
    [
      'the program could not start',
      { type: 'spawn_failed', message: 'EACCES', durationMs: 5 },
      'Claude Code could not be started.',
    ],
  ])('%s', (_name, r, message) => {
    const got = toAgentResult(claude, inv, r);
    expect(got).toMatchObject({
      type: 'error',
      kind: 'exit',
      message,
      detail: r.type === 'spawn_failed' ? r.message : '',
    });
  });
});
