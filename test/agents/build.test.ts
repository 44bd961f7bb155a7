// What each spec puts on the command line. The prompt is never there: it goes on stdin.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getSpec } from '../../src/agents/registry.js';
import type { AgentKind, BuildContext } from '../../src/agents/types.js';

const ctx = (over: Partial<BuildContext> = {}): BuildContext => ({
  prompt: '--help me @secrets.txt',
  session: { type: 'new' },
  command: ['/opt/bin/cli', '--fixed'],
  cwd: '/w',
  stateDir: '/state/x',
  ...over,
});

/** opencode's error log on stderr: how a run learns of its retries (src/agents/opencode.ts). */
const OPENCODE_LOGS = ['--print-logs', '--log-level', 'ERROR'];

const table: { kind: AgentKind; over: Partial<BuildContext>; argv: string[] }[] = [
  {
    kind: 'claude',
    over: { session: { type: 'new', id: 'u-1' }, model: 'opus', thinking: 'high', systemText: '-be brief' },
    argv: [
      ...['-p', '--output-format', 'stream-json', '--verbose', '--session-id', 'u-1'],
      ...['--model', 'opus', '--effort', 'high', '--append-system-prompt=-be brief'],
    ],
  },
  {
    kind: 'claude',
    over: { session: { type: 'resume', id: 'u-1' } },
    argv: ['-p', '--output-format', 'stream-json', '--verbose', '--resume', 'u-1'],
  },
  {
    kind: 'codex',
    over: { model: 'gpt-5.5', thinking: 'low', systemText: 'say "hi"' },
    argv: [
      ...['exec', '--json', '--skip-git-repo-check', '--model', 'gpt-5.5'],
      ...['-c', 'model_reasoning_effort="low"', '-c', 'developer_instructions="say \\"hi\\""', '--', '-'],
    ],
  },
  {
    kind: 'codex',
    over: { session: { type: 'resume', id: '01a2-thread' } },
    argv: ['exec', 'resume', '--json', '--skip-git-repo-check', '--', '01a2-thread', '-'],
  },
  {
    // A member's run: codex's read-only sandbox, by `-c` (which `exec resume` takes, `--sandbox` not).
    kind: 'codex',
    over: { session: { type: 'resume', id: '01a2-thread' }, readOnly: true },
    argv: [
      ...['exec', 'resume', '--json', '--skip-git-repo-check'],
      ...['-c', 'sandbox_mode="read-only"', '--', '01a2-thread', '-'],
    ],
  },
  // A member's or guest's run (networkTools: false): each CLI's own network tools off where a flag
  // says it (opencode's is in its environment, below); pi and gemini have no such flag: unchanged.
  {
    kind: 'claude',
    over: { session: { type: 'new', id: 'u-1' }, networkTools: false },
    argv: [
      ...['-p', '--output-format', 'stream-json', '--verbose'],
      ...['--disallowedTools', 'WebFetch,WebSearch', '--session-id', 'u-1'],
    ],
  },
  {
    kind: 'codex',
    over: { session: { type: 'resume', id: '01a2-thread' }, readOnly: true, networkTools: false },
    argv: [
      ...['exec', 'resume', '--json', '--skip-git-repo-check'],
      ...['-c', 'sandbox_mode="read-only"', '-c', 'web_search="disabled"', '--', '01a2-thread', '-'],
    ],
  },
  { kind: 'opencode', over: { networkTools: false }, argv: ['run', '--format', 'json', ...OPENCODE_LOGS] },
  {
    kind: 'pi',
    over: { session: { type: 'resume', id: '/s/a.jsonl' }, networkTools: false },
    argv: ['--mode', 'json', '-p', '--session', '/s/a.jsonl'],
  },
  {
    kind: 'gemini',
    over: { session: { type: 'resume', id: 'chat-1' }, networkTools: false },
    argv: ['--output-format', 'stream-json', '--skip-trust', '--resume', 'chat-1'],
  },
  // A CLI with no read-only sandbox ignores it.
  { kind: 'opencode', over: { readOnly: true }, argv: ['run', '--format', 'json', ...OPENCODE_LOGS] },
  {
    kind: 'pi',
    over: { session: { type: 'resume', id: '/state/x/pi-sessions/a.jsonl' }, thinking: 'off' },
    argv: ['--mode', 'json', '-p', '--session', '/state/x/pi-sessions/a.jsonl', '--thinking', 'off'],
  },
  { kind: 'opencode', over: {}, argv: ['run', '--format', 'json', ...OPENCODE_LOGS] },
  {
    kind: 'opencode',
    over: { session: { type: 'resume', id: 'ses_abc' }, model: 'fake/m', thinking: 'high' },
    argv: [
      'run',
      '--format',
      'json',
      ...OPENCODE_LOGS,
      '--session',
      'ses_abc',
      '--model',
      'fake/m',
      '--variant',
      'high',
    ],
  },
  {
    kind: 'gemini',
    over: { session: { type: 'new', id: 'chat-1' }, model: 'gemini-2.5-pro' },
    argv: [
      '--output-format',
      'stream-json',
      '--skip-trust',
      '--session-id',
      'chat-1',
      '--model',
      'gemini-2.5-pro',
    ],
  },
  {
    kind: 'gemini',
    over: { session: { type: 'resume', id: 'chat-1' } },
    argv: ['--output-format', 'stream-json', '--skip-trust', '--resume', 'chat-1'],
  },
];

describe('AgentSpec.build', () => {
  it.each(table)('$kind $over.session.type', ({ kind, over, argv }) => {
    const inv = getSpec(kind).build(ctx(over));
    expect(inv.argv).toEqual(['/opt/bin/cli', '--fixed', ...argv]);
    expect(inv.stdin).toBe('--help me @secrets.txt');
  });

  it.each<[string, Partial<BuildContext>, Record<string, string> | undefined]>([
    ['owner: nothing of ours', {}, undefined],
    ['networkTools true: nothing', { networkTools: true }, undefined],
    [
      'networkTools false: webfetch and websearch denied',
      { networkTools: false },
      { OPENCODE_PERMISSION: '{"webfetch":"deny","websearch":"deny"}' },
    ],
    [
      "the user's own rules kept, ours over theirs for these two",
      { networkTools: false, env: { OPENCODE_PERMISSION: '{"bash":"deny","webfetch":"allow"}' } },
      { OPENCODE_PERMISSION: '{"bash":"deny","webfetch":"deny","websearch":"deny"}' },
    ],
    [
      'a value that is not a JSON object: replaced (the deny wins)',
      { networkTools: false, env: { OPENCODE_PERMISSION: 'nonsense' } },
      { OPENCODE_PERMISSION: '{"webfetch":"deny","websearch":"deny"}' },
    ],
  ])('opencode environment, %s', (_n, over, env) => {
    expect(getSpec('opencode').build(ctx(over)).env).toEqual(env);
  });

  it('puts a new pi session in a fresh file under the state folder', () => {
    const a = getSpec('pi').build(ctx());
    const b = getSpec('pi').build(ctx());
    expect(a.sessionId).toMatch(/^\/state\/x\/pi-sessions\/[0-9a-f-]{36}\.jsonl$/);
    expect(a.sessionId).not.toBe(b.sessionId);
    expect(a.argv).toContain(a.sessionId);
  });

  it('pi: a stored session file that is gone is seen before the run; other ids are left to the CLI', () => {
    const dir = mkdtempSync(join(tmpdir(), 'aw-pi-'));
    try {
      const kept = join(dir, 'kept.jsonl');
      writeFileSync(kept, '{"type":"session"}\n');
      const gone = getSpec('pi').sessionGone as (id: string) => boolean;
      const table: [string, boolean][] = [
        [kept, false],
        [join(dir, 'deleted.jsonl'), true],
        [join(dir, 'no-folder', 'x.jsonl'), true],
        // pi looks a UUID up in its own folder: the relay cannot tell, so it does not guess.
        ['0b6a3c1e-8a7d-4b0e-9a51-2f1c6a9d7e33', false],
      ];
      expect(table.map(([id]) => gone(id))).toEqual(table.map(([, want]) => want));
      // Only pi's sessions are files the relay can check.
      for (const kind of ['claude', 'codex', 'opencode', 'gemini'] as AgentKind[])
        expect(getSpec(kind).sessionGone).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each(['claude', 'codex', 'pi', 'opencode', 'gemini'] as AgentKind[])(
    '%s refuses ids and models that would read as flags',
    (kind) => {
      const spec = getSpec(kind);
      expect(() => spec.build(ctx({ session: { type: 'resume', id: '--yolo' } }))).toThrow(/invalid/);
      expect(() => spec.build(ctx({ model: '-x' }))).toThrow(/invalid/);
    },
  );
});
