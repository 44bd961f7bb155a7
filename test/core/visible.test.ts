// Hidden characters written out: one row per kind of character a phone draws as nothing.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isHidden, visible } from '../../src/core/visible.js';

describe('visible', () => {
  it.each([
    ['plain text and plain spaces stay', 'rm -rf build/', 'rm -rf build/'],
    [
      'letters with their accents stay (composed or not)',
      'café cafe\u0301 Ünïcödé',
      'café cafe\u0301 Ünïcödé',
    ],
    ['CJK, emoji with skin tone stay', '漢字 👍🏽', '漢字 👍🏽'],
    ['an emoji presentation selector on a pictograph stays', '⚠️ x', '⚠️ x'],
    ['newline, tab, CR (Cc): one line stays one line', 'a\nb\tc\rd', 'a<U+000A>b<U+0009>c<U+000D>d'],
    ['ANSI escape (Cc)', '\u001b[2Jx', '<U+001B>[2Jx'],
    [
      'zero-width space, joiner, word joiner, BOM (Cf)',
      'a\u200bb\u200dc\u2060d\ufeff',
      'a<U+200B>b<U+200D>c<U+2060>d<U+FEFF>',
    ],
    ['bidi overrides and isolates (Cf)', '\u202eabc\u2066d', '<U+202E>abc<U+2066>d'],
    ['soft hyphen (Cf)', 'r\u00adm', 'r<U+00AD>m'],
    ['tag characters (Cf)', 'x\u{e0041}\u{e007f}', 'x<U+E0041><U+E007F>'],
    [
      'no-break, ideographic, en and hair spaces (Zs)',
      'a\u00a0b\u3000c\u2002d\u200ae',
      'a<U+00A0>b<U+3000>c<U+2002>d<U+200A>e',
    ],
    ['line and paragraph separators (Zl, Zp)', 'a\u2028b\u2029c', 'a<U+2028>b<U+2029>c'],
    ['Braille blank', 'ls\u2800\u2800; rm', 'ls<U+2800><U+2800>; rm'],
    ['Hangul fillers', '\u3164\u115f\u1160\uffa0', '<U+3164><U+115F><U+1160><U+FFA0>'],
    [
      'variation selectors (standard, supplementary, Mongolian)',
      'a\ufe0fb\u{e0100}c\u180bd',
      'a<U+FE0F>b<U+E0100>c<U+180B>d',
    ],
    ['combining grapheme joiner, Khmer invisible vowels', 'a\u034fb\u17b4', 'a<U+034F>b<U+17B4>'],
    ['private use and unassigned', '\ue000\u{10ffff}', '<U+E000><U+10FFFF>'],
    ['a lone surrogate', 'a\ud800b', 'a<U+D800>b'],
    ['marks on nothing: at the start, after a space', '\u0301x \u0300y', '<U+0301>x <U+0300>y'],
    ['marks past two on one letter (zalgo)', 'a\u0301\u0302\u0303\u0304', 'a\u0301\u0302<U+0303><U+0304>'],
    ['a literal <U+ cannot pass for a written-out character', 'echo <U+2800>', 'echo <U+003C>U+2800>'],
    ['a < elsewhere stays', 'a < b <Ux', 'a < b <Ux'],
  ])('%s', (_name, text, want) => expect(visible(text)).toBe(want));

  it('hides nothing and drops nothing: every character is either itself or written out', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (s) => {
        const out = visible(s);
        // Undo the writing out: the input comes back exactly.
        const back = out.replace(/<U\+([0-9A-F]{4,6})>/g, (_m, h: string) =>
          String.fromCodePoint(parseInt(h, 16)),
        );
        expect(back).toBe(s);
        for (const ch of out.replace(/<U\+[0-9A-F]{4,6}>/g, '')) expect(isHidden(ch)).toBe(false);
      }),
      { numRuns: 100 },
    );
  });
});
