// The hints `config check` gives: a missing comma named at the place it belongs, and the nearest
// known key for an unknown one. Through parseConfigText, as `config check` and the relay read a file.
import { describe, expect, it } from 'vitest';
import { missingComma, nearestKey } from '../src/config/hints.js';
import { formatProblem, parseConfigText } from '../src/config/load.js';

const check = (text: string) => {
  const r = parseConfigText(text, 'c.json5', {});
  return r.ok ? [] : r.problems.map(formatProblem);
};

describe('a missing comma in JSON5', () => {
  it.each([
    // [text, where the comma belongs]
    ['{\n  queue: {maxConcurrentRuns: 2}\n  agent: {}\n}', '2:32'],
    ['{a: 1 b: 2}', '1:6'],
    ['{a: "x"\n "b": 2}', '1:8'],
    ['{a: [1 2]}', '1:7'],
    ['{a: true // note, with a comma\n  // c\n  b: 1}', '1:9'],
    ['{url: "https://example.com/x" // a comment\n  b: 1}', '1:30'],
    ['{a: {b: [1, 2]}\n  c: 3}', '1:16'],
  ])('%j: named as a missing comma at %s', (text, at) => {
    const [p] = check(text);
    expect(p).toMatch(
      new RegExp(
        `^c\\.json5:${at} \\(root\\): missing comma after the previous value \\(JSON5 stopped at \\d+:\\d+: invalid character`,
      ),
    );
  });

  it.each([['{a: 1,, b: 2}'], ['{a b: 1}'], ['{a: }'], ['{\n  agent: {kind: "claude"\n}\n']])(
    '%j: other syntax errors keep the parser’s own words',
    (text) => {
      const [p] = check(text);
      expect(p).toBeDefined();
      expect(p).not.toContain('missing comma');
    },
  );

  it('missingComma is undefined past the end of the text', () => {
    expect(missingComma('{a: 1}', 9, 1)).toBeUndefined();
  });
});

describe('an unknown key', () => {
  it('suggests the nearest known key at its level', () => {
    expect(check('{\n  queue: {maxConcurentRuns: 2},\n}')).toEqual([
      'c.json5:2:11 queue.maxConcurentRuns: unknown key; did you mean maxConcurrentRuns?',
    ]);
    expect(check('{agent: {kind: "codex", timeoutSecond: 5}}')[0]).toContain(
      'agent.timeoutSecond: unknown key; did you mean timeoutSeconds?',
    );
    expect(check('{Queue: {}}')[0]).toContain('Queue: unknown key; did you mean queue?');
  });

  it('inside arrays of objects too', () => {
    const problems = check(
      '{schedules: [{id: "a", cron: "0 9 * * *", promt: "hi", target: "whatsapp:self"}]}',
    );
    expect(problems).toContainEqual(
      expect.stringContaining('schedules.0.promt: unknown key; did you mean prompt?'),
    );
  });

  it('says nothing when no key is close', () => {
    expect(check('{bogus: true}')).toEqual(['c.json5:1:2 bogus: unknown key']);
  });

  it('several unknown keys each get their own guess', () => {
    expect(check('{queue: {maxConcurentRuns: 2, zzzzzz: 1}}')[0]).toContain(
      'unknown keys maxConcurentRuns (did you mean maxConcurrentRuns?), zzzzzz',
    );
  });

  it('nearestKey: case and a few edits, not an unrelated short key', () => {
    expect(nearestKey('MAXCONCURRENTRUNS', ['maxConcurrentRuns'])).toBe('maxConcurrentRuns');
    expect(nearestKey('foo', ['cwd', 'env'])).toBeUndefined();
    expect(nearestKey('kidn', ['kind', 'command'])).toBe('kind');
  });
});
