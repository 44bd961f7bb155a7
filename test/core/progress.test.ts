import { beforeAll, describe, expect, it } from 'vitest';
import {
  formatDuration,
  type ProgressState,
  reduceProgress,
  renderProgress,
  startProgress,
  statusLine,
  summaryLine,
} from '../../src/core/progress.js';
import { type ProgressEvent, progressEmitter, shortDetail } from '../../src/core/progress-event.js';
import { registerCredential } from '../../src/log.js';

const SECRET = 'sk-progress-test-0123456789';
beforeAll(() => registerCredential(SECRET));

const run = (events: ProgressEvent[], from = 0): ProgressState =>
  events.reduce(reduceProgress, startProgress(from));

describe('statusLine', () => {
  // events, the time the line is read, the line
  const rows: [string, ProgressEvent[], number, string][] = [
    ['nothing yet', [], 0, 'working'],
    [
      'a read',
      [{ type: 'tool', id: 'a', name: 'Read', detail: 'src/queue.ts', at: 0 }],
      100,
      'reading src/queue.ts',
    ],
    [
      'a short command',
      [{ type: 'tool', name: 'Bash', detail: 'npm test', at: 0 }],
      4999,
      'running `npm test`',
    ],
    [
      'a long command',
      [{ type: 'tool', name: 'Bash', detail: 'npm test', at: 0 }],
      12_400,
      'running `npm test` (12 s)',
    ],
    ['codex shell', [{ type: 'tool', name: 'shell', detail: 'ls', at: 0 }], 0, 'running `ls`'],
    ['ACP kind', [{ type: 'tool', name: 'execute', detail: 'touch x', at: 0 }], 0, 'running `touch x`'],
    ['an edit', [{ type: 'tool', name: 'edit', detail: 'a.ts', at: 0 }], 0, 'editing a.ts'],
    ['a search', [{ type: 'tool', name: 'Grep', detail: 'TODO', at: 0 }], 0, 'searching TODO'],
    [
      'a fetch',
      [{ type: 'tool', name: 'WebFetch', detail: 'https://x.test', at: 0 }],
      0,
      'fetching https://x.test',
    ],
    ['an MCP tool', [{ type: 'tool', name: 'mcp__agentwire__send', at: 0 }], 0, 'using agentwire/send'],
    ['other with detail', [{ type: 'tool', name: 'Task', detail: 'review', at: 0 }], 0, 'using Task: review'],
    [
      'ask_user tool',
      [{ type: 'tool', name: 'mcp__agentwire__ask_user', detail: 'deploy where?', at: 0 }],
      0,
      'asking: deploy where?',
    ],
    ['gemini ask_person', [{ type: 'tool', name: 'agentwire_ask_person', at: 0 }], 0, 'asking'],
    ['asking', [{ type: 'asking', question: 'deploy where?', at: 0 }], 0, 'asking: deploy where?'],
    [
      'a tool ended: its line stays until the agent does something else',
      [
        { type: 'tool', id: 'a', name: 'Bash', detail: 'ls', at: 0 },
        { type: 'tool_done', id: 'a', ok: true, at: 1 },
      ],
      9000,
      'running `ls`',
    ],
    [
      'the newest open tool wins',
      [
        { type: 'tool', id: 'a', name: 'Bash', detail: 'sleep 9', at: 0 },
        { type: 'tool', id: 'b', name: 'Read', detail: 'b.ts', at: 1 },
      ],
      2,
      'reading b.ts',
    ],
    [
      'the other ends first',
      [
        { type: 'tool', id: 'a', name: 'Bash', detail: 'sleep 9', at: 0 },
        { type: 'tool', id: 'b', name: 'Read', detail: 'b.ts', at: 1 },
        { type: 'tool_done', id: 'b', ok: true, at: 2 },
      ],
      6000,
      'running `sleep 9` (6 s)',
    ],
    [
      'an update of the same call keeps its start',
      [
        { type: 'tool', id: 'a', name: 'execute', at: 0 },
        { type: 'tool', id: 'a', name: 'execute', detail: 'make', at: 3000 },
      ],
      7000,
      'running `make` (7 s)',
    ],
    ['thinking', [{ type: 'thinking', at: 0 }], 0, 'thinking'],
    [
      'thinking after a tool',
      [
        { type: 'tool', id: 'a', name: 'Read', detail: 'a.ts', at: 0 },
        { type: 'tool_done', id: 'a', ok: true, at: 1 },
        { type: 'thinking', at: 2 },
      ],
      3,
      'thinking',
    ],
    ['writing', [{ type: 'text', delta: 'Hello', at: 0 }], 0, 'writing'],
    [
      'an answer ends the asking',
      [
        { type: 'asking', question: 'ok?', at: 0 },
        { type: 'tool', name: 'Bash', detail: 'ls', at: 5 },
      ],
      6,
      'running `ls`',
    ],
  ];
  it.each(rows)('%s', (_, events, now, line) => {
    expect(statusLine(run(events), now)).toBe(line);
  });
});

describe('summaryLine', () => {
  const rows: [string, ProgressEvent[], number, string][] = [
    ['no tools', [{ type: 'text', delta: 'hi', at: 0 }], 3_000, '3 s'],
    ['one tool', [{ type: 'tool', name: 'Bash', at: 0 }], 5_000, '1 tool, 5 s'],
    [
      'three tools, one failed',
      [
        { type: 'tool', id: '1', name: 'Bash', at: 0 },
        { type: 'tool_done', id: '1', ok: true, at: 1 },
        { type: 'tool', id: '2', name: 'Read', at: 2 },
        { type: 'tool_done', id: '2', ok: false, at: 3 },
        { type: 'tool', id: '2', name: 'Read', detail: 'again', at: 4 },
      ],
      48_000,
      '3 tools (1 failed), 48 s',
    ],
  ];
  it.each(rows)('%s', (_, events, now, line) => {
    expect(summaryLine(run(events), now)).toBe(line);
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0 s'],
    [59_999, '59 s'],
    [60_000, '1 min'],
    [125_000, '2 min 5 s'],
    [3_600_000, '1 h'],
    [3_780_000, '1 h 3 min'],
  ])('%i ms → %s', (ms, text) => expect(formatDuration(ms)).toBe(text));
});

describe('renderProgress stream', () => {
  it('shows the tail of the text under the line, masked again whole, without MEDIA lines', () => {
    const half = SECRET.length / 2;
    const s = run([
      { type: 'tool', name: 'Bash', detail: 'ls', at: 0 },
      { type: 'text', delta: `key ${SECRET.slice(0, half)}`, at: 1 },
      { type: 'text', delta: `${SECRET.slice(half)} done\nMEDIA: ./a.png\nend`, at: 2 },
    ]);
    expect(renderProgress(s, 3, 'status')).toBe('running `ls`');
    expect(renderProgress(s, 3, 'stream')).toBe('running `ls`\n\nkey [redacted] done\nend');
  });
  it('cuts a long text from the left', () => {
    const s = run([{ type: 'text', delta: 'x'.repeat(5000), at: 0 }]);
    const out = renderProgress(s, 0, 'stream');
    expect(out.startsWith('writing\n\n…x')).toBe(true);
    expect(out.length).toBeLessThanOrEqual('writing\n\n'.length + 600);
  });
});

describe('progressEmitter', () => {
  it('masks, cuts and stamps every event, and survives a listener that throws', () => {
    const seen: ProgressEvent[] = [];
    let calls = 0;
    const emit = progressEmitter(
      (ev) => {
        calls++;
        if (calls === 1) throw new Error('listener broke');
        seen.push(ev);
      },
      () => 42,
    );
    emit([
      { type: 'thinking' },
      { type: 'tool', id: 't', name: 'Bash', detail: `curl -H "Authorization: ${SECRET}"\nhttps://x` },
      { type: 'tool', name: 'Read', detail: `/home/u/${'deep/'.repeat(30)}file.ts` },
      { type: 'asking', question: `token ${SECRET}?` },
      { type: 'text', delta: '' },
      { type: 'tool_done', id: 't', ok: true },
    ]);
    expect(calls).toBe(6 - 1);
    expect(seen).toEqual([
      {
        type: 'tool',
        id: 't',
        name: 'Bash',
        detail: 'curl -H "Authorization: [redacted]" https://x',
        at: 42,
      },
      { type: 'tool', name: 'Read', detail: `…${`/home/u/${'deep/'.repeat(30)}file.ts`.slice(-79)}`, at: 42 },
      { type: 'asking', question: 'token [redacted]?', at: 42 },
      { type: 'tool_done', id: 't', ok: true, at: 42 },
    ]);
  });
  it('keeps the start of a long command and one line', () => {
    expect(shortDetail(`npm run ${'a'.repeat(200)}`)).toBe(`npm run ${'a'.repeat(72)}…`);
    expect(shortDetail('a\tb\r\nc')).toBe('a b c');
  });
  it('does nothing without a listener', () => {
    expect(() => progressEmitter(undefined)([{ type: 'thinking' }])).not.toThrow();
  });
});
