// The escape that lets PostgreSQL's TEXT and JSONB hold a NUL (store/postgres/nul.ts): every text
// comes back as it went in, text without NUL or the escape character is stored unchanged, and two
// texts never share a stored form. Pure functions: no server needed.
import { describe, expect, it } from 'vitest';
import { escapeNul, fromJsonb, toJsonb, unescapeNul } from '../../src/store/postgres/nul.js';

const E = '\uffff';

describe('the NUL escape of the PostgreSQL engine', () => {
  it.each([
    ['plain', 'hello', 'hello'],
    ['empty', '', ''],
    ['a NUL', 'a\u0000b', `a${E}0b`],
    ['only NULs', '\u0000\u0000', `${E}0${E}0`],
    ['the escape character', `x${E}y`, `x${E}ey`],
    ['the escape then a 0', `${E}0`, `${E}e0`],
    ['a NUL then the escape', `\u0000${E}`, `${E}0${E}e`],
    ['emoji and a NUL', '👋\u0000é', `👋${E}0é`],
  ])('%s: stored as expected, read back unchanged', (_name, text, stored) => {
    expect(escapeNul(text)).toBe(stored);
    expect(escapeNul(text)).not.toContain('\u0000');
    expect(unescapeNul(escapeNul(text))).toBe(text);
  });

  it('two different texts never share a stored form', () => {
    const texts = [
      '',
      '0',
      'e',
      E,
      `${E}0`,
      `${E}e`,
      '\u0000',
      `\u00000`,
      `${E}${E}`,
      `\u0000${E}`,
      `${E}\u0000`,
    ];
    const stored = texts.map(escapeNul);
    expect(new Set(stored).size).toBe(texts.length);
    expect(stored.map(unescapeNul)).toEqual(texts);
  });

  it('JSON for JSONB holds no NUL escape, and its strings come back unchanged, nested too', () => {
    const item = {
      type: 'text',
      text: 'a\u0000b',
      media: [{ caption: `c${E}\u0000` }],
      n: 1,
      on: true,
      no: null,
    };
    const json = toJsonb(item);
    expect(json).not.toContain('\\u0000');
    expect(fromJsonb(JSON.parse(json))).toEqual(item);
  });
});
