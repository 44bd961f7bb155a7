// The reducers read a line only when it can change something (wordsTest), and gemini reads its
// deltas off the line by a pattern. Both must be exact: the same events as parsing every line.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as claude from '../../src/agents/claude.js';
import * as codex from '../../src/agents/codex.js';
import { JSON_STRING, jsonLine, type Reducer, stringValue, wordsTest } from '../../src/agents/common.js';
import * as gemini from '../../src/agents/gemini.js';
import * as opencode from '../../src/agents/opencode.js';
import * as pi from '../../src/agents/pi.js';
import { AGENT_SPECS } from '../../src/agents/registry.js';
import type { AgentKind, StreamEvent } from '../../src/agents/types.js';
import { linesOf, loadCaptures } from './fixtures.js';

const REDUCERS: Record<AgentKind, () => Reducer> = {
  claude: claude.reducer,
  codex: codex.reducer,
  pi: pi.reducer,
  opencode: opencode.reducer,
  gemini: gemini.reducer,
};

/** A string as a JSON token, some plain characters written as \u escapes (JSON.stringify never does). */
function escaped(s: string, pick: (i: number) => boolean): string {
  const chars = [...s].map((c, i) =>
    /^[A-Za-z0-9._-]$/.test(c) && pick(i)
      ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`
      : JSON.stringify(c).slice(1, -1),
  );
  return `"${chars.join('')}"`;
}

describe('wordsTest', () => {
  const t = wordsTest('item.started', 'user');

  it('finds a word only as a whole JSON string, or any \\u escape', () => {
    expect(t.test('{"type":"item.started"}')).toBe(true);
    expect(t.test('{"user":1}')).toBe(true);
    expect(t.test('{"type":"users"}')).toBe(false);
    expect(t.test('{"type":"itemXstarted"}')).toBe(false);
    expect(t.test('{"text":"a user said"}')).toBe(false);
    expect(t.test('{"type":"\\u0075ser"}')).toBe(true);
    expect(t.test('{"text":"caf\\u00e9"}')).toBe(true);
  });

  it('refuses words that an escape other than \\u could spell', () => {
    expect(() => wordsTest('a"b')).toThrow();
    expect(() => wordsTest('a b')).toThrow();
  });

  it('never misses a word anywhere in a JSON line, however it is escaped (property)', () => {
    const word = fc.constantFrom('user', 'item.started', 'step_finish', 'message_end');
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue()),
        word,
        fc.boolean(),
        fc.func(fc.boolean()),
        (o, w, asKey, pick) => {
          const line = asKey
            ? `{${escaped(w, pick)}:1,${JSON.stringify(o).slice(1)}`.replace(/,}$/, '}')
            : JSON.stringify({ ...o, at: w }).replace(
                `"at":${JSON.stringify(w)}`,
                `"at":${escaped(w, pick)}`,
              );
          expect(JSON.stringify(JSON.parse(line))).toContain(JSON.stringify(w));
          expect(wordsTest(w).test(line)).toBe(true);
        },
      ),
    );
  });
});

describe('JSON_STRING', () => {
  const token = new RegExp(`^${JSON_STRING}$`);

  it('matches what JSON.stringify writes, and reads back the same string (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.func(fc.boolean()), (s, pick) => {
        for (const t of [JSON.stringify(s), escaped(s, pick)]) {
          expect(token.test(t)).toBe(true);
          expect(stringValue(t)).toBe(s);
        }
      }),
    );
  });

  it('matches exactly the tokens JSON.parse reads as one string (property)', () => {
    const piece = fc.constantFrom(
      'a',
      '"',
      '\\',
      '\\"',
      '\\n',
      '\\/',
      '\\u00e9',
      '\\u12',
      '\\x',
      '\t',
      '\u0001',
      '\u007f',
      'é',
      '\u{1f600}',
      '\ud800',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), (pieces) => {
        const t = `"${pieces.join('')}"`;
        let parsed: unknown;
        try {
          parsed = JSON.parse(t);
        } catch {
          parsed = undefined;
        }
        expect(token.test(t), t).toBe(parsed !== undefined);
        if (parsed !== undefined) expect(stringValue(t)).toBe(parsed);
      }),
    );
  });
});

describe('gemini deltas read off the line', () => {
  const deltas = loadCaptures()
    .filter((c) => c.kind === 'gemini')
    .flatMap((c) => linesOf(c.stdout))
    .filter((l) => jsonLine(l)?.delta === true);

  it('gives the content JSON.parse gives, for every delta in the captures', () => {
    expect(deltas.length).toBeGreaterThan(40);
    for (const l of deltas) expect(gemini.deltaContent(l)).toBe(jsonLine(l)!.content);
  });

  it('reads any content, and nothing that is not exactly such an event (property)', () => {
    const edit = fc.tuple(
      fc.nat(),
      fc.constantFrom('', ' ', '"', '\\', '\t', 'x', '}', ',"delta":true', ',"type":"x"'),
      fc.nat(3),
    );
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }),
        fc.constantFrom(...deltas),
        fc.array(edit, { maxLength: 2 }),
        (content, real, edits) => {
          const line = real.replace(/"content":.*,"delta"/, `"content":${JSON.stringify(content)},"delta"`);
          expect(gemini.deltaContent(line)).toBe(content);
          let mutated = line;
          for (const [at, text, drop] of edits) {
            const i = at % (mutated.length + 1);
            mutated = mutated.slice(0, i) + text + mutated.slice(i + drop);
          }
          const got = gemini.deltaContent(mutated);
          if (got === undefined) return;
          const ev = JSON.parse(mutated) as Record<string, unknown>;
          expect(Object.keys(ev)).toEqual(['type', 'timestamp', 'role', 'content', 'delta']);
          expect([ev.type, ev.role, ev.delta, ev.content]).toEqual(['message', 'assistant', true, got]);
        },
      ),
    );
  });

  it('leaves a long line to JSON.parse instead of overflowing the pattern', () => {
    const long = deltas[0]!.replace(/"content":"[^"]*"/, `"content":"${'x'.repeat(1e7)}"`);
    expect(gemini.deltaContent(long)).toBeUndefined();
  });
});

describe('reading only the lines that matter', () => {
  const captures = loadCaptures();
  // Real lines, and the same lines with a word \u-escaped, a second "type" key, a tail cut off.
  const variants = (l: string): string[] => {
    const word = /"([a-z_.]{3,20})"/.exec(l);
    return [
      l,
      word
        ? l.replace(
            word[0],
            escaped(word[1]!, () => true),
          )
        : l,
      l.endsWith('}') ? `${l.slice(0, -1)},"type":"end"}` : l,
      l.endsWith('}') ? `${l.slice(0, -1)},"type":"user"}` : l,
      l.slice(0, Math.floor(l.length / 2)),
    ];
  };

  it.each(Object.keys(REDUCERS) as AgentKind[])(
    '%s: the line path gives what stepping over every line JSON gives (property)',
    (kind) => {
      const runs = captures.filter((c) => c.kind === kind).map((c) => linesOf(c.stdout));
      const keep = AGENT_SPECS[kind].keepLine;
      // Slices of real runs spliced together (a step cut off, then another one starting), each line
      // as it was or in one of its variants.
      const slice = fc.record({ run: fc.nat(), from: fc.nat(), len: fc.nat(12), variant: fc.nat(9) });
      fc.assert(
        fc.property(fc.array(slice, { maxLength: 8 }), (slices) => {
          const lines = slices.flatMap((s) => {
            const run = runs[s.run % runs.length]!;
            return run
              .slice(s.from % run.length, (s.from % run.length) + s.len)
              .map((l, i) => variants(l)[(s.variant + i) % 10 < 5 ? 0 : (s.variant + i) % 5]!);
          });
          const byLine = REDUCERS[kind]();
          const byJson = REDUCERS[kind]();
          for (const l of lines) {
            const ev = jsonLine(l);
            const want: StreamEvent[] = ev && (!keep || keep(l)) ? byJson.event(ev) : [];
            expect(byLine.line(l), l).toEqual(want);
          }
        }),
        { numRuns: 500 },
      );
    },
  );
});
