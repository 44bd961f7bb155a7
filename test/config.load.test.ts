import { describe, expect, it } from 'vitest';
import { AGENT_KINDS } from '../src/agents/registry.js';
import { parseConfigText } from '../src/config/load.js';
import { locate } from '../src/config/locate.js';

describe('parseConfigText', () => {
  it('accepts an empty object with every default filled in', () => {
    const r = parseConfigText('{}', 'c.json5', {});
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.config.agent.kind).toBe('claude');
      expect(r.config.agent.timeoutSeconds).toBe(600);
      expect(r.config.queue.maxConcurrentRuns).toBe(4);
      expect(r.config.whatsapp.enabled).toBe(true);
      expect(r.config.twilio.enabled).toBe(false);
    }
  });

  it.each([
    ['{queue: {bogus: 1}}', 'queue.bogus', 1, 10],
    ['{\n  agent: {\n    kind: "nope"\n  }\n}', 'agent.kind', 3, 5],
    ['{queue: {maxConcurrentRuns: 0}}', 'queue.maxConcurrentRuns', 1, 10],
    ['{schedules: [{id: "a", target: "x", prompt: "p"}]}', 'schedules.0', 1, 14],
    ['{agents: {\n  codex: {},\n  codx: {model: "m"}}}', 'agents.codx', 3, 3],
    ['{heartbeat: {agent: "nope"}}', 'heartbeat.agent', 1, 14],
    ['{agent: {kind: "Claude"}}', 'agent.kind', 1, 10],
  ])('reports %s at the key', (text, path, line, col) => {
    const r = parseConfigText(text, 'c.json5', {}, AGENT_KINDS);
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.problems).toContainEqual(expect.objectContaining({ path, line, col, file: 'c.json5' }));
  });

  it('checks every kind the config names against the registry list it is given', () => {
    const text = `{
      agent: {kind: "codx"},
      agents: {gemni: {}},
      schedules: [{id: "a", target: "console:x", prompt: "p", every: "1h", agent: "pie"}],
    }`;
    const r = parseConfigText(text, 'c.json5', {}, AGENT_KINDS);
    expect(r.ok ? [] : r.problems.map((p) => [p.path, p.message])).toEqual([
      [
        'agent.kind',
        'unknown agent kind "codx"; did you mean codex? (known: claude, codex, pi, opencode, gemini, acp)',
      ],
      [
        'agents.gemni',
        'unknown agent kind "gemni"; did you mean gemini? (known: claude, codex, pi, opencode, gemini, acp)',
      ],
      [
        'schedules.0.agent',
        'unknown agent kind "pie"; did you mean pi? (known: claude, codex, pi, opencode, gemini, acp)',
      ],
    ]);
    // The same names pass once the registry's list has them: the config layer knows no kind itself.
    expect(parseConfigText(text, 'c.json5', {}, ['codx', 'gemni', 'pie']).ok).toBe(true);
  });

  it("hints at a typo inside a kind's own settings, as anywhere else", () => {
    const r = parseConfigText('{agents: {codex: {modell: "x"}}}', 'c.json5', {}, AGENT_KINDS);
    expect(r.ok ? [] : r.problems.map((p) => [p.path, p.message])).toEqual([
      ['agents.codex.modell', 'unknown key; did you mean model?'],
    ]);
  });

  it('refuses nesting deeper than any config at the first too-deep key, instead of overflowing the stack', () => {
    const deep = (n: number) => `{\n  agent: {env: ${'{a:'.repeat(n)}1${'}'.repeat(n)}}}`;
    const r = parseConfigText(deep(100_000), 'c.json5', {});
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.problems).toHaveLength(1);
      expect(r.problems[0]).toMatchObject({
        file: 'c.json5',
        line: 2,
        message: 'nested more than 32 levels deep',
      });
      expect(r.problems[0]!.path.startsWith('agent.env.a.a.')).toBe(true);
    }
    // Just under the limit the ordinary checks answer (env values must be strings).
    const shallow = parseConfigText(deep(29), 'c.json5', {});
    expect(!shallow.ok && shallow.problems[0]!.message).toMatch(/expected string/);
  });

  it('reports JSON5 syntax errors with a position', () => {
    const r = parseConfigText('{\n  agent: {kind: "claude",,}\n}', 'c.json5', {});
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems[0]).toMatchObject({ line: 2, path: '' });
  });

  it('substitutes ${VAR} and reports a missing one', () => {
    const ok = parseConfigText('{twilio: {authToken: "${TOK}"}}', 'c', { TOK: 'abc' });
    expect(ok.ok && ok.config.twilio.authToken).toBe('abc');
    const bad = parseConfigText('{twilio: {authToken: "${TOK}"}}', 'c', {});
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.problems[0]?.message).toContain('TOK');
  });
});

describe('every problem has a position', () => {
  it('reports a missing required key at the object that lacks it', () => {
    const r = parseConfigText('{\n  schedules: [\n    {every: "5m", prompt: "p"},\n  ],\n}', 'c', {});
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.problems).toContainEqual(
        expect.objectContaining({
          path: 'schedules.0.id',
          line: 3,
          col: 5,
          message: expect.stringMatching(/missing/),
        }),
      );
      expect(r.problems).toContainEqual(
        expect.objectContaining({ path: 'schedules.0.target', line: 3, col: 5 }),
      );
    }
  });

  it('reports a wrong top-level value at its first character, after comments', () => {
    const r = parseConfigText('// config\n  [1, 2]', 'c', {});
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems).toEqual([expect.objectContaining({ path: '', line: 2, col: 3 })]);
  });

  it('lists cross-key problems in the same pass as type errors (duplicate schedule ids)', () => {
    const s = (id: string, extra = '') =>
      `{id: "${id}", every: "5m", target: "whatsapp:+15551234567", prompt: "p"${extra}}`;
    const text = `{schedules: [\n${s('a')},\n${s('a', ', check: [5]')},\n]}`;
    const r = parseConfigText(text, 'c', {});
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.problems.map((p) => `${p.line}:${p.col} ${p.path}`).sort()).toEqual([
        '3:2 schedules.1.id',
        expect.stringMatching(/^3:\d+ schedules\.1\.check\.0$/),
      ]);
    }
  });

  it('keeps the ${VAR} references it substituted, for printing', () => {
    const r = parseConfigText('{agent: {command: ["claude", "--key=${K}"]}}', 'c', { K: 'v1' });
    expect(r.ok && r.config.agent.command).toEqual(['claude', '--key=v1']);
    expect(r.ok && r.envRefs).toEqual([{ path: ['agent', 'command', 1], template: '--key=${K}' }]);
  });
});

describe('locate', () => {
  it('skips comments and nested values', () => {
    const text = '{\n // a: 1\n a: {x: [1, {y: 2}]},\n b: "s}",\n c: 3\n}';
    expect(locate(text, ['c'])).toEqual({ line: 5, col: 2 });
    expect(locate(text, ['a', 'x', 1, 'y'])).toEqual({ line: 3, col: 14 });
    expect(locate(text, ['missing'])).toEqual({});
  });

  it('reads escaped and Unicode keys and strings the way JSON5 does', () => {
    const text =
      '{\n s: "a \\\n } [ \\"",\n "q\\u0075eue": {\n  max\\u0043: 1, \'it\\\'s\': 2, agént: 3\n }\n}';
    expect(locate(text, ['queue', 'maxC'])).toEqual({ line: 5, col: 3 });
    expect(locate(text, ['queue', "it's"])).toEqual({ line: 5, col: 17 });
    expect(locate(text, ['queue', 'agént'])).toEqual({ line: 5, col: 29 });
  });
});

describe('environment defaults', () => {
  it('fills Twilio credentials from the environment unless the file sets them', () => {
    const env = { TWILIO_ACCOUNT_SID: 'ACenv', TWILIO_AUTH_TOKEN: 'tok-env', HOME: '/home/u' };
    const r = parseConfigText('{twilio: {accountSid: "ACfile"}}', 'c', env);
    expect(r.ok && r.config.twilio).toMatchObject({ accountSid: 'ACfile', authToken: 'tok-env' });
  });

  it('expands ~ in path keys', () => {
    const r = parseConfigText('{agent: {cwd: "~/code"}, media: {allowedRoots: ["~", "/abs"]}}', 'c', {
      HOME: '/home/u',
    });
    expect(r.ok && r.config.agent.cwd).toBe('/home/u/code');
    expect(r.ok && r.config.media.allowedRoots).toEqual(['/home/u', '/abs']);
  });
});
