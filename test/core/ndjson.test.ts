// The one JSON-lines framer, as a table: chunks in, records and over-cap reports out. Whatever the
// chunking, the records are the same (checked by cutting each input at every byte as well).
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { frameLines, lineFramer } from '../../src/core/ndjson.js';

type Out = (string | { tooLarge: number })[];

function frame(chunks: (string | Buffer)[], max = 16, end = true): Out {
  const out: Out = [];
  const f = lineFramer({
    maxLineBytes: max,
    onLine: (l) => out.push(l),
    onTooLarge: (bytes) => out.push({ tooLarge: bytes }),
  });
  for (const c of chunks) f.push(c);
  if (end) f.end();
  return out;
}

describe('lineFramer', () => {
  it.each<[string, (string | Buffer)[], Out, number?]>([
    ['one record', ['{"a":1}\n'], ['{"a":1}']],
    ['two records in one chunk', ['{"a":1}\n{"b":2}\n'], ['{"a":1}', '{"b":2}']],
    ['a record across three chunks', ['{"a"', ':', '1}\n'], ['{"a":1}']],
    ['LF only: U+2028 and U+2029 stay inside the record', ['"a\u2028b\u2029c"\n'], ['"a\u2028b\u2029c"'], 64],
    ['a CR before the LF is dropped, a lone CR kept', ['a\r\nb\rc\n'], ['a', 'b\rc']],
    ['an empty record is delivered as empty', ['\n\na\n'], ['', '', 'a']],
    ['the last record without its LF, at the end', ['a\nbc'], ['a', 'bc']],
    ['a record of exactly the cap passes', [`${'x'.repeat(16)}\n`], ['x'.repeat(16)]],
    ['one byte over the cap in one chunk', [`${'x'.repeat(17)}\nok\n`], [{ tooLarge: 17 }, 'ok']],
    [
      'over the cap across chunks, reported once, the rest of it dropped',
      ['x'.repeat(10), 'x'.repeat(10), 'x'.repeat(30), 'y\nok\n'],
      [{ tooLarge: 20 }, 'ok'],
    ],
    ['an unfinished record over the cap at the end is not delivered', ['x'.repeat(40)], [{ tooLarge: 40 }]],
  ])('%s', (_name, chunks, want, max) => {
    expect(frame(chunks, max)).toEqual(want);
  });

  it('gives the same records wherever the bytes are cut (a UTF-8 character split too)', () => {
    const bytes = Buffer.from('{"t":"é😀"}\r\n\n{"u":"\u2028"}\nlast');
    const whole = frame([bytes], 64);
    expect(whole).toEqual(['{"t":"é😀"}', '', '{"u":"\u2028"}', 'last']);
    for (let i = 1; i < bytes.length; i++) {
      expect(frame([bytes.subarray(0, i), bytes.subarray(i)], 64)).toEqual(whole);
    }
  });

  it('holds nothing back before the end: a record without its LF waits', () => {
    expect(frame(['a\nb'], 16, false)).toEqual(['a']);
  });
});

describe('frameLines', () => {
  it("delivers the last record on the stream's end, then says it ended", async () => {
    const input = new PassThrough();
    const seen: string[] = [];
    const ended = new Promise<void>((resolve) =>
      frameLines(input, {
        maxLineBytes: 64,
        onLine: (l) => seen.push(l),
        onTooLarge: () => seen.push('too large'),
        onEnd: () => {
          seen.push('end');
          resolve();
        },
      }),
    );
    input.write('{"a":1}\n{"b"');
    input.end(':2}');
    await ended;
    expect(seen).toEqual(['{"a":1}', '{"b":2}', 'end']);
  });
});
