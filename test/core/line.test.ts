import { describe, expect, it } from 'vitest';
import { cutText } from '../../src/core/line.js';

describe('cutText', () => {
  it.each([
    ['short', 10, 'short'],
    ['exactly10!', 10, 'exactly10!'],
    ['eleven char', 10, 'eleven cha…'],
    // The cut would fall between the halves of 😀 (two code units): the lone half goes too.
    ['abc😀def', 4, 'abc…'],
    ['abc😀def', 5, 'abc😀…'],
    ['', 0, ''],
  ])('%j at %d → %j', (text, max, out) => expect(cutText(text, max)).toBe(out));
});
