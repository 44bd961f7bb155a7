// Each CLI's cold output (the real captures in fixtures/agents/<kind>/) mapped onto progress events
// by its spec's progressStream: what a status line would be told, line by line.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { unwrapShell } from '../../src/agents/progress-map.js';
import { getSpec } from '../../src/agents/registry.js';
import type { ProgressStep } from '../../src/core/progress-event.js';
import { FIXTURES_DIR, linesOf } from './fixtures.js';

function stepsOf(kind: string, fixture: string): ProgressStep[] {
  const capture = JSON.parse(readFileSync(join(FIXTURES_DIR, kind, `${fixture}.json`), 'utf8')) as {
    stdout: string;
  };
  const spec = getSpec(kind);
  const map = spec.progressStream?.();
  if (!map) throw new Error(`${kind} has no progressStream`);
  return linesOf(capture.stdout).flatMap((l) => map(l));
}

const rows: [string, string, ProgressStep[]][] = [
  [
    'claude',
    'tool',
    [
      { type: 'text', delta: 'Let me check.' },
      {
        type: 'tool',
        name: 'Bash',
        id: 'toolu_fake_e7af2157df58b9c55dba0cce',
        detail: 'echo fake-tool-ran',
      },
      { type: 'tool_done', id: 'toolu_fake_e7af2157df58b9c55dba0cce', ok: true },
      { type: 'text', delta: 'Here is your chart.\nMEDIA: ./chart.png' },
    ],
  ],
  // An API error's synthetic message is not the agent saying anything.
  ['claude', 'auth', []],
  [
    'codex',
    'tool',
    [
      { type: 'tool', name: 'shell', id: 'item_0', detail: 'echo fake-tool-ran' },
      { type: 'tool_done', id: 'item_0', ok: true },
      { type: 'text', delta: 'Here is your chart.\nMEDIA: ./chart.png' },
    ],
  ],
  [
    'codex',
    'reasoning',
    [{ type: 'thinking' }, { type: 'text', delta: 'Here is your chart.\nMEDIA: ./chart.png' }],
  ],
  [
    'pi',
    'tool',
    [
      { type: 'tool', name: 'bash', id: 'call_2ce521d2904b5bcbfe23fb68', detail: 'echo fake-tool-ran' },
      { type: 'tool_done', id: 'call_2ce521d2904b5bcbfe23fb68', ok: true },
      ...['Here is ', 'your cha', 'rt.\nMEDI', 'A: ./cha', 'rt.png'].map(
        (delta): ProgressStep => ({ type: 'text', delta }),
      ),
    ],
  ],
  [
    'gemini',
    'tool',
    [
      { type: 'text', delta: 'Let me c' },
      { type: 'text', delta: 'heck.' },
      {
        type: 'tool',
        name: 'run_shell_command',
        id: 'run_shell_command__run_shell_command_1795322898163_0',
        detail: 'echo fake-tool-ran',
      },
      { type: 'tool_done', id: 'run_shell_command__run_shell_command_1795322898163_0', ok: true },
      ...['Here is ', 'your cha', 'rt.\nMEDI', 'A: ./cha', 'rt.png'].map(
        (delta): ProgressStep => ({ type: 'text', delta }),
      ),
    ],
  ],
  [
    'opencode',
    'tool',
    [
      { type: 'tool', name: 'bash', id: 'call_662cac694f6394add1787cc4', detail: 'echo fake-tool-ran' },
      { type: 'tool_done', id: 'call_662cac694f6394add1787cc4', ok: true },
      { type: 'text', delta: 'Here is your chart.\nMEDIA: ./chart.png' },
    ],
  ],
];

describe('progressStream over the real captures', () => {
  it.each(rows)('%s %s', (kind, fixture, steps) => {
    expect(stepsOf(kind, fixture)).toEqual(steps);
  });

  it('reads nothing from lines that are not JSON (text mode, stderr noise)', () => {
    expect(stepsOf('codex', 'new-text')).toEqual([]);
  });
});

describe('unwrapShell', () => {
  it.each([
    ["/bin/bash -lc 'echo fake-tool-ran'", 'echo fake-tool-ran'],
    ["bash -lc 'echo '\\''hi'\\'''", "echo 'hi'"],
    ['npm test', 'npm test'],
    ["/bin/bash -lc 'a' && rm x", "/bin/bash -lc 'a' && rm x"],
  ])('%s → %s', (raw, cmd) => expect(unwrapShell(raw)).toBe(cmd));
});
