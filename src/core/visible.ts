// What an approval shows must be what runs. Characters a phone draws as nothing (zero-width and
// format characters, odd spaces, fillers that look blank, marks with nothing to sit on) could hide a
// part of a command or push the rest out of view, so each one is written out as `<U+XXXX>` instead.
// Nothing is dropped and nothing is cut here: the text stays exact, only made readable. Pure;
// table-tested in test/core/visible.test.ts.

/** Drawn as blank though not in a blank category: Hangul fillers, the Braille blank, and the like. */
const BLANK_LOOKING = new Set([
  0x115f, 0x1160, 0x3164, 0xffa0, 0x2800, 0x17b4, 0x17b5, 0x034f, 0x180e, 0xfffc, 0x1cbc,
]);

/**
 * Invisible or misleading on their own: controls (newline and tab included: one line stays one
 * line), format characters (zero-width, bidi, soft hyphen, tags), every space but the plain one,
 * line and paragraph separators, private-use, unassigned and lone surrogate code points, variation
 * selectors.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zs}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Cs}]/u;
/** Variation selectors (standard, supplementary, Mongolian): they change the glyph before them. */
const SELECTORS: readonly [number, number][] = [
  [0xfe00, 0xfe0f],
  [0xe0100, 0xe01ef],
  [0x180b, 0x180f],
];
const MARK = /\p{M}/u;
const PICTOGRAPH = /\p{Extended_Pictographic}/u;
/** Combining marks one visible character may carry before the rest are written out (zalgo text). */
const MARKS_PER_BASE = 2;

const code = (cp: number): string => `<U+${cp.toString(16).toUpperCase().padStart(4, '0')}>`;

/** True for a code point `visible` writes out. */
export function isHidden(ch: string): boolean {
  const cp = ch.codePointAt(0) ?? 0;
  return (
    ch !== ' ' &&
    (BLANK_LOOKING.has(cp) || HIDDEN.test(ch) || SELECTORS.some(([lo, hi]) => cp >= lo && cp <= hi))
  );
}

/**
 * `text` with every hidden character written out as `<U+XXXX>`, and the `<` of a literal `<U+`
 * written as `<U+003C>`, so no text of the agent's can pass for a written-out character.
 */
export function visible(text: string): string {
  let out = '';
  // Marks count only on a visible base character: a run of them on nothing is written out.
  let marks = -1;
  const chars = [...text];
  chars.forEach((ch, i) => {
    const cp = ch.codePointAt(0) ?? 0;
    // Text or emoji presentation right after a pictograph (⚠️) only picks how it is drawn.
    if ((cp === 0xfe0e || cp === 0xfe0f) && PICTOGRAPH.test(chars[i - 1] ?? '')) {
      out += ch;
      return;
    }
    if (isHidden(ch) || (ch === '<' && chars[i + 1] === 'U' && chars[i + 2] === '+')) {
      out += code(cp);
      marks = -1;
    } else if (MARK.test(ch)) {
      if (marks < 0 || marks >= MARKS_PER_BASE) out += code(cp);
      else {
        out += ch;
        marks++;
      }
    } else {
      out += ch;
      marks = ch === ' ' ? -1 : 0;
    }
  });
  return out;
}
