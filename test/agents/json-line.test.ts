import { describe, expect, it } from 'vitest';
import { jsonLine } from '../../src/agents/common.js';

describe('jsonLine', () => {
  it('remembers only the line it was just given: alternating and repeated lines read right', () => {
    const a = '{"type":"a","n":1}';
    const b = '{"type":"b","n":2}';
    const seq = [a, a, b, a, 'not json', a, '{"type":"a","n":1}', '{"half":', b, b];
    expect(seq.map((l) => jsonLine(l)?.type)).toEqual([
      'a',
      'a',
      'b',
      'a',
      undefined,
      'a',
      'a',
      undefined,
      'b',
      'b',
    ]);
    expect(jsonLine(b)).toEqual({ type: 'b', n: 2 });
  });

  it('refuses arrays, scalars and padded garbage, remembered or not', () => {
    for (const line of ['[1,2]', '42', '"{}"', '{"a":1} x', '  {"a":1}  '])
      expect([jsonLine(line), jsonLine(line)]).toEqual(
        line.trim() === '{"a":1}' ? [{ a: 1 }, { a: 1 }] : [undefined, undefined],
      );
  });
});
