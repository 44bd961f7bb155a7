// The fakes' JSONL logs are read while a fake CLI may be appending to them (helpers.ts): a read that
// lands in the middle of a write must not hand back half a line (CI once parsed one and failed).
import { describe, expect, it } from 'vitest';
import { completeLines } from './helpers.js';

describe('completeLines', () => {
  const cases: [string, string, string[]][] = [
    ['an empty file', '', []],
    ['whole lines', '{"a":1}\n{"b":2}\n', ['{"a":1}', '{"b":2}']],
    ['a last line still being written', '{"a":1}\n{"b":', ['{"a":1}']],
    ['only a line being written', '{"a"', []],
    ['blank lines', '{"a":1}\n\n{"b":2}\n', ['{"a":1}', '{"b":2}']],
  ];
  it.each(cases)('%s', (_name, text, lines) => {
    expect(completeLines(text)).toEqual(lines);
  });
});
