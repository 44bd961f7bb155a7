// The shortcuts of line-forms.ts against JSON.parse itself: each must give exactly what it gives.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  jsonPattern,
  lineForm,
  NUMBER,
  numberValue,
  readForm,
  STRING,
  stringValue,
  wordsTest,
} from '../../src/agents/line-forms.js';
import { escaped } from './json-text.js';

/** What JSON.parse gives for a text, or a marker when it refuses it. */
function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return 'refused';
  }
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

describe('STRING', () => {
  const token = new RegExp(`^${STRING}$`);

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
        const want = parsed(t);
        expect(token.test(t), t).toBe(want !== 'refused');
        if (want !== 'refused') expect(stringValue(t)).toBe(want);
      }),
    );
  });
});

describe('NUMBER', () => {
  const token = new RegExp(`^${NUMBER}$`);

  it('matches what JSON.stringify writes, and reads back the same number (property)', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (d) => {
        const t = JSON.stringify(d);
        expect(token.test(t)).toBe(true);
        expect(Object.is(numberValue(t), JSON.parse(t))).toBe(true);
      }),
    );
  });

  it('matches exactly the tokens JSON.parse reads as a number, to the same value (property)', () => {
    const piece = fc.constantFrom('-', '+', '0', '1', '9', '.', 'e', 'E', '5', '00', '12345678901234567890');
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 8 }), (pieces) => {
        const t = pieces.join('');
        const want = parsed(t);
        expect(token.test(t), t).toBe(typeof want === 'number');
        if (typeof want === 'number') expect(Object.is(numberValue(t), want), t).toBe(true);
      }),
    );
    for (const t of ['-0', '1e400', '-1e-400', '0.1', '2.5E+3', '9007199254740993'])
      expect(Object.is(numberValue(t), JSON.parse(t)), t).toBe(true);
  });
});

describe('lineForm', () => {
  const form = lineForm`{"a":${STRING},"b":[${NUMBER}],"c":{${`(?:${jsonPattern`${STRING}:${NUMBER}`})?`}}}`;

  it('matches the line as written, capturing each value in order, or only the ones asked for', () => {
    const line = '{"a":"x\\ny","b":[-1.5e3],"c":{"k":7}}';
    expect(readForm(form.all, line)?.slice(1)).toEqual(['"x\\ny"', '-1.5e3', '"k":7']);
    expect(readForm(form.only(2), line)?.slice(1)).toEqual(['-1.5e3']);
    expect(readForm(form.only(3, 1), line)?.slice(1)).toEqual(['"x\\ny"', '"k":7']);
    expect(readForm(form.only(), line)?.slice(1)).toEqual([]);
    for (const f of [form.all, form.only(), form.only(1)])
      expect(readForm(f, '{"a":"x","b":[1],"c":{}}')).not.toBeNull();
  });

  it('takes the text literally and nothing else: no white space, no other order, no extra key', () => {
    for (const line of [
      '{"a": "x","b":[1],"c":{}}',
      '{"b":[1],"a":"x","c":{}}',
      '{"a":"x","b":[1],"c":{},"d":1}',
      ' {"a":"x","b":[1],"c":{}}',
      '{"a":"x","b":[1]X"c":{}}',
    ])
      for (const f of [form.all, form.only()]) expect(readForm(f, line), line).toBeNull();
  });

  it('leaves a line longer than 16 KiB to JSON.parse, where the pattern would overflow', () => {
    const long = lineForm`{"a":${STRING}}`;
    expect(readForm(long.all, `{"a":"${'x'.repeat(16_000)}"}`)).not.toBeNull();
    expect(readForm(long.all, `{"a":"${'x'.repeat(17_000)}"}`)).toBeNull();
    expect(readForm(long.all, `{"a":"${'x'.repeat(10_000_000)}"}`)).toBeNull();
  });
});
