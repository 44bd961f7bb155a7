import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CappedLines, linesOf } from '../../src/runner/lines.js';

function collect(chunks: (string | Buffer)[], maxBytes: number, keep?: (l: string) => boolean) {
  const streamed: string[] = [];
  const c = new CappedLines({ maxBytes, onLine: (l) => streamed.push(l), keep });
  for (const ch of chunks) c.push(ch);
  c.end();
  return { lines: c.lines, streamed, truncated: c.truncated };
}

describe('CappedLines', () => {
  it('splits lines across chunk boundaries, CRLF included, and hands on a last half line', () => {
    const r = collect(['a', 'b\r\nc', 'd\n{"x":', '1'], 1000);
    expect(r.lines).toEqual(['ab', 'cd', '{"x":1']);
    expect(r.streamed).toEqual(r.lines);
    expect(r.truncated).toBe(false);
  });

  it('keeps a multi-byte character split between chunks intact', () => {
    const bytes = Buffer.from('héllo ✓ done\n');
    const r = collect([bytes.subarray(0, 2), bytes.subarray(2, 8), bytes.subarray(8)], 1000);
    expect(r.lines).toEqual(['héllo ✓ done']);
  });

  it('past the cap keeps the head and the latest lines, dropping the middle', () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line-${String(i).padStart(3, '0')}`);
    const r = collect([lines.map((l) => `${l}\n`).join('')], 200);
    expect(r.truncated).toBe(true);
    expect(r.lines[0]).toBe('line-000');
    expect(r.lines[r.lines.length - 1]).toBe('line-099');
    expect(r.lines.join('\n').length).toBeLessThanOrEqual(200);
    expect(r.streamed).toHaveLength(100);
  });

  it('drops a single line longer than the cap but streams it cut', () => {
    const r = collect(['x'.repeat(500), '\nshort\n'], 100);
    expect(r.truncated).toBe(true);
    expect(r.lines).toEqual(['short']);
    expect(r.streamed[0]).toHaveLength(100);
  });

  it('does not count lines the filter rejects', () => {
    const noisy = `${'{"type":"noise"}\n'.repeat(1000)}{"type":"final"}\n`;
    const r = collect([noisy], 100, (l) => !l.includes('noise'));
    expect(r).toMatchObject({ lines: ['{"type":"final"}'], truncated: false });
    expect(r.streamed).toHaveLength(1001);
  });

  it('never keeps more than the cap, whatever the chunks (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 80 }), { maxLength: 60 }),
        fc.integer({ min: 8, max: 300 }),
        (chunks, cap) => {
          const r = collect(chunks, cap);
          const kept = r.lines.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0);
          expect(kept).toBeLessThanOrEqual(cap + 1);
          if (!r.truncated) expect(r.lines).toEqual(linesOf(chunks.join('')));
        },
      ),
    );
  });

  it('reads the same whatever the chunking: whole lines in one chunk or byte by byte (property)', () => {
    // Lines inside one chunk take a faster path than lines split across chunks; both must agree,
    // also for a line of exactly the cap and one byte over it.
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('x'.repeat(32), 'y'.repeat(33))), {
          maxLength: 30,
        }),
        fc.integer({ min: 1, max: 64 }),
        (lines, size) => {
          const bytes = Buffer.from(lines.map((l) => `${l}\n`).join(''));
          const bySize: Buffer[] = [];
          for (let i = 0; i < bytes.length; i += size) bySize.push(bytes.subarray(i, i + size));
          const byByte = Array.from(bytes, (b) => Buffer.from([b]));
          expect(collect([bytes], 32)).toEqual(collect(byByte, 32));
          expect(collect(bySize, 32)).toEqual(collect(byByte, 32));
        },
      ),
    );
  });
});
