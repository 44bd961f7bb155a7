import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkText } from '../../src/core/chunk.js';

const hasLoneSurrogate = (s: string) =>
  /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);

describe('chunkText: tables', () => {
  it.each<[string, string, number, string[]]>([
    ['empty text makes no message', '', 10, []],
    ['whitespace only makes no message', ' \n\t \n', 10, []],
    ['short text is one message', 'hello', 10, ['hello']],
    ['exactly the limit is one message', 'abcdefghij', 10, ['abcdefghij']],
    ['cuts between words', 'aaaa bbbb cccc', 10, ['aaaa bbbb', 'cccc']],
    ['prefers a paragraph break', 'aaa bbb\n\nccc ddd eee', 16, ['aaa bbb', 'ccc ddd eee']],
    ['prefers a line break over a later space', 'aaaaaa\nbb cc dd', 12, ['aaaaaa', 'bb cc dd']],
    ['cuts a word only when it must', 'abcdefghijklmno', 10, ['abcdefghij', 'klmno']],
    ['never cuts a surrogate pair', `${'a'.repeat(9)}😀b`, 10, ['a'.repeat(9), '😀b']],
    ['drops leading blank lines', '\n\n  \nhi', 10, ['hi']],
  ])('%s', (_name, text, limit, expected) => {
    expect(chunkText(text, limit)).toEqual(expected);
  });

  it('keeps a code block whole by cutting before it when it fits in one message', () => {
    const code = '```js\nconst a = 1;\nconst b = 2;\n```';
    const text = `${'intro words here. '.repeat(4)}\n${code}\nafter`;
    const chunks = chunkText(text, 80);
    expect(chunks).toContain(code + '\nafter');
    expect(chunks[0]).not.toContain('```');
  });

  it('splits a block longer than the limit at a line, closing and re-opening the fence', () => {
    const lines = Array.from({ length: 30 }, (_, i) => `line ${String(i).padStart(2, '0')} of code`);
    const text = `\`\`\`python\n${lines.join('\n')}\n\`\`\``;
    const chunks = chunkText(text, 120);
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) {
      expect(c.length).toBeLessThanOrEqual(120);
      expect(c.startsWith('```python\n')).toBe(true);
      expect(c.endsWith('\n```')).toBe(true);
      // Every code line arrives whole.
      for (const l of c.split('\n').slice(1, -1)) expect(lines).toContain(l);
    }
    const body = chunks.flatMap((c) => c.split('\n').slice(1, -1));
    expect(body).toEqual(lines);
  });

  it('below the fence minimum, fences are plain text (no closing fence added)', () => {
    expect(chunkText('```\nab cd ef\n```', 8)).toEqual(['```\nab', 'cd ef', '```']);
  });

  it('rejects a limit below 1', () => {
    expect(() => chunkText('x', 0)).toThrow(RangeError);
  });
});

describe('chunkText: properties', () => {
  const textArb = fc.array(
    fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 12 }),
      fc.constantFrom(' ', '\n', '\n\n', '😀', '👍🏽', '```', '```ts\n', '\n```\n', 'x'.repeat(70)),
    ),
    { maxLength: 80 },
  );

  it('every message is within the limit, non-empty and has no lone surrogate', () => {
    fc.assert(
      fc.property(textArb, fc.integer({ min: 2, max: 200 }), (parts, limit) => {
        const chunks = chunkText(parts.join(''), limit);
        for (const c of chunks) {
          expect(c.length).toBeLessThanOrEqual(limit);
          expect(c.trim().length).toBeGreaterThan(0);
          expect(hasLoneSurrogate(c)).toBe(false);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('without fences, no text is lost or added (ignoring whitespace)', () => {
    const noFence = textArb.map((p) => p.join('').replace(/[`~]/g, ''));
    fc.assert(
      fc.property(noFence, fc.integer({ min: 2, max: 120 }), (text, limit) => {
        const squash = (s: string) => s.replace(/\s+/g, '');
        expect(squash(chunkText(text, limit).join(''))).toBe(squash(text));
      }),
      { numRuns: 400 },
    );
  });

  it('with balanced code blocks, every message has balanced fences and code lines arrive whole, in order', () => {
    const word = fc.stringMatching(/^[a-z]{1,12}$/);
    const para = fc
      .array(word, { minLength: 1, maxLength: 30 })
      .map((w) => ({ type: 'p' as const, text: w.join(' ') }));
    const code = fc
      .array(fc.stringMatching(/^[a-z =;()]{0,40}$/), { minLength: 1, maxLength: 25 })
      .map((lines) => ({ type: 'c' as const, lines }));
    fc.assert(
      fc.property(
        fc.array(fc.oneof(para, code), { maxLength: 8 }),
        fc.integer({ min: 64, max: 400 }),
        (blocks, limit) => {
          const text = blocks
            .map((b) => (b.type === 'p' ? b.text : `\`\`\`\n${b.lines.join('\n')}\n\`\`\``))
            .join('\n\n');
          const chunks = chunkText(text, limit);
          const codeIn = blocks.flatMap((b) => (b.type === 'c' ? b.lines.filter((l) => l.trim()) : []));
          const codeOut: string[] = [];
          for (const c of chunks) {
            expect(c.length).toBeLessThanOrEqual(limit);
            const lines = c.split('\n');
            expect(lines.filter((l) => l.startsWith('```')).length % 2).toBe(0);
            let inside = false;
            for (const l of lines) {
              if (l.startsWith('```')) inside = !inside;
              else if (inside && l.trim()) codeOut.push(l.replace(/\s+$/, ''));
            }
          }
          // Lines longer than what fits are the one case where a code line may be cut.
          if (codeIn.every((l) => l.length < limit - 10))
            expect(codeOut).toEqual(codeIn.map((l) => l.replace(/\s+$/, '')));
        },
      ),
      { numRuns: 300 },
    );
  });
});

// The one splitter with each channel's rules (its plug-in's textRules): what used to be Twilio's and
// WhatsApp's own splitters, as rows of one table.
describe('chunkText: per-channel rules', () => {
  const sms = (limit: number) => ({ limit, fences: false });
  it.each<[string, string, { limit: number; fences: boolean }, string[]]>([
    [
      'a paragraph break first',
      `${'a'.repeat(12)}\n\n${'b'.repeat(12)}`,
      sms(20),
      ['a'.repeat(12), 'b'.repeat(12)],
    ],
    ['then a line break', `${'a'.repeat(12)}\n${'b'.repeat(12)}`, sms(20), ['a'.repeat(12), 'b'.repeat(12)]],
    [
      'then a sentence end',
      'First sentence. Second one here.',
      sms(20),
      ['First sentence.', 'Second one here.'],
    ],
    [
      'a sentence end keeps its closing quote',
      'He said "stop." Then he left us.',
      sms(20),
      ['He said "stop."', 'Then he left us.'],
    ],
    [
      'a sentence end beats a later space',
      'Done here. And then some more',
      sms(18),
      ['Done here.', 'And then some more'],
    ],
    ['then a space', 'aaaaaaaaaa bbbbbbbbbbbbbb', sms(20), ['aaaaaaaaaa', 'bbbbbbbbbbbbbb']],
    ['hard cut with no boundary', 'x'.repeat(45), sms(20), ['x'.repeat(20), 'x'.repeat(20), 'x'.repeat(5)]],
    [
      'an early paragraph break loses to a later line break',
      `ab\n\n${'c'.repeat(12)}\n${'d'.repeat(10)}`,
      sms(20),
      [`ab\n\n${'c'.repeat(12)}`, 'd'.repeat(10)],
    ],
    [
      'a surrogate pair is never cut',
      `${'x'.repeat(19)}😀${'y'.repeat(10)}`,
      sms(20),
      ['x'.repeat(19), `😀${'y'.repeat(10)}`],
    ],
    [
      'an emoji ZWJ sequence stays whole',
      `${'x'.repeat(15)}👨‍👩‍👧‍👦${'y'.repeat(3)}`,
      sms(20),
      ['x'.repeat(15), `👨‍👩‍👧‍👦${'y'.repeat(3)}`],
    ],
    ['a skin-tone emoji stays whole', `${'x'.repeat(17)}👍🏽z`, sms(20), ['x'.repeat(17), '👍🏽z']],
  ])('%s', (_name, text, rules, expected) => {
    expect(chunkText(text, rules)).toEqual(expected);
  });

  const code = `\`\`\`\n${Array.from({ length: 30 }, (_, i) => `line ${i}`).join('\n')}\n\`\`\``;
  it('fences on (WhatsApp, Telegram): a block it must cut is closed and re-opened', () => {
    const parts = chunkText(code, { limit: 100, fences: true });
    expect(parts.length).toBeGreaterThan(1);
    for (const p of parts) {
      expect(p.length).toBeLessThanOrEqual(100);
      expect(p.split('```').length % 2).toBe(1);
      expect(p.startsWith('```')).toBe(true);
    }
  });

  it('fences off (SMS): a fence is text, never added or re-opened', () => {
    const parts = chunkText(code, { limit: 100, fences: false });
    expect(parts.join('\n').split('```').length - 1).toBe(2);
    expect(parts.slice(1).some((p) => p.startsWith('```'))).toBe(false);
  });

  it('a number is the limit with fences on, as before', () => {
    expect(chunkText(code, 100)).toEqual(chunkText(code, { limit: 100, fences: true }));
  });

  it('property, fences off: within the limit, whole graphemes, only whitespace lost', () => {
    const seg = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
    const piece = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 40 }),
      fc.constantFrom('\n', '\n\n', '. ', ' ', '😀', '👍🏽', '👨‍👩‍👧‍👦', '```\ncode\n```'),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 80 }), fc.integer({ min: 16, max: 200 }), (pieces, limit) => {
        const text = pieces.join('');
        const chunks = chunkText(text, { limit, fences: false });
        const bounds = new Set([...seg.segment(text)].map((g) => g.index));
        for (const c of chunks) {
          expect(c.trim().length).toBeGreaterThan(0);
          expect(c.length).toBeLessThanOrEqual(limit);
          expect(hasLoneSurrogate(c)).toBe(false);
          // Each chunk starts on a grapheme boundary of the text (whitespace trimmed at cuts only).
          const at = text.indexOf(c);
          if (at >= 0 && [...seg.segment(c)][0]?.segment.length === 1) expect(bounds.has(at)).toBe(true);
        }
        expect(chunks.join('').replace(/\s+/g, '')).toBe(text.replace(/\s+/g, ''));
      }),
      { numRuns: 300 },
    );
  });
});
