import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitMessage, TWILIO_BODY_LIMIT } from '../../../src/channels/twilio/split.js';

const noWs = (s: string) => s.replace(/\s+/g, '');
const LONE_HIGH_AT_END = /[\uD800-\uDBFF]$/;
const LONE_LOW_AT_START = /^[\uDC00-\uDFFF]/;

describe('splitMessage', () => {
  it.each([
    ['short text stays whole', 'hello', 20, ['hello']],
    ['exactly the limit stays whole', 'a'.repeat(20), 20, ['a'.repeat(20)]],
    ['empty gives nothing', '', 20, []],
    ['whitespace only gives nothing', '  \n\n ', 20, []],
    [
      'paragraph break preferred',
      `${'a'.repeat(12)}\n\n${'b'.repeat(12)}`,
      20,
      ['a'.repeat(12), 'b'.repeat(12)],
    ],
    ['line break next', `${'a'.repeat(12)}\n${'b'.repeat(12)}`, 20, ['a'.repeat(12), 'b'.repeat(12)]],
    ['sentence end next', 'First sentence. Second one here.', 20, ['First sentence.', 'Second one here.']],
    ['then a space', 'aaaaaaaaaa bbbbbbbbbbbbbb', 20, ['aaaaaaaaaa', 'bbbbbbbbbbbbbb']],
    ['hard cut with no boundary', 'x'.repeat(45), 20, ['x'.repeat(20), 'x'.repeat(20), 'x'.repeat(5)]],
    [
      'an early paragraph break loses to a later line break',
      `ab\n\n${'c'.repeat(12)}\n${'d'.repeat(10)}`,
      20,
      [`ab\n\n${'c'.repeat(12)}`, 'd'.repeat(10)],
    ],
  ])('%s', (_name, text, limit, expected) => {
    expect(splitMessage(text, limit)).toEqual(expected);
  });

  it('never cuts a surrogate pair on a hard cut', () => {
    // 19 ASCII then an emoji straddling the 20th unit.
    const text = `${'x'.repeat(19)}😀${'y'.repeat(10)}`;
    const chunks = splitMessage(text, 20);
    expect(chunks).toEqual(['x'.repeat(19), `😀${'y'.repeat(10)}`]);
  });

  it('keeps an emoji ZWJ sequence whole', () => {
    const family = '👨‍👩‍👧‍👦';
    const text = `${'x'.repeat(15)}${family}${'y'.repeat(10)}`;
    const chunks = splitMessage(text, 20);
    expect(chunks[0]).toBe('x'.repeat(15));
    expect(chunks[1]?.startsWith(family)).toBe(true);
  });

  it('defaults to Twilio’s 1,600-character limit', () => {
    const chunks = splitMessage('word '.repeat(1000));
    expect(TWILIO_BODY_LIMIT).toBe(1600);
    expect(chunks.length).toBe(4);
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThanOrEqual(1600);
  });

  it('rejects a nonsensical limit', () => {
    expect(() => splitMessage('x', 3)).toThrow(RangeError);
  });

  it('property: chunks are non-empty, within the limit, whole code points, and lose only whitespace', () => {
    const piece = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 40 }),
      fc.constantFrom('\n', '\n\n', '. ', ' ', '😀', '👍🏽', '```\ncode\n```'),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 80 }), fc.integer({ min: 16, max: 200 }), (pieces, limit) => {
        const text = pieces.join('');
        const chunks = splitMessage(text, limit);
        for (const c of chunks) {
          expect(c.trim().length).toBeGreaterThan(0);
          expect(c.length).toBeLessThanOrEqual(limit);
          expect(c).not.toMatch(LONE_HIGH_AT_END);
          expect(c).not.toMatch(LONE_LOW_AT_START);
        }
        expect(noWs(chunks.join(''))).toBe(noWs(text));
      }),
      { numRuns: 300 },
    );
  });
});
