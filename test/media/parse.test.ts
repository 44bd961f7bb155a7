import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractMedia, mergeMedia } from '../../src/media/parse.js';

const cases: { name: string; input: string; text: string; media: string[] }[] = [
  { name: 'plain text', input: 'hello', text: 'hello', media: [] },
  { name: 'one reference', input: 'Here.\nMEDIA: ./a.png', text: 'Here.', media: ['./a.png'] },
  {
    name: 'any case, leading spaces',
    input: '   media:  /tmp/x.pdf  \nok',
    text: 'ok',
    media: ['/tmp/x.pdf'],
  },
  { name: 'Media mixed case', input: 'MeDiA:./b.png', text: '', media: ['./b.png'] },
  { name: 'tab before', input: '\tMEDIA: ./t.png\nx', text: 'x', media: ['./t.png'] },
  { name: 'backticks removed', input: 'MEDIA: `./b file.pdf`', text: '', media: ['./b file.pdf'] },
  { name: 'double quotes removed', input: 'MEDIA: "./c d.png"', text: '', media: ['./c d.png'] },
  { name: 'single quotes removed', input: "MEDIA: './e.png'", text: '', media: ['./e.png'] },
  { name: 'only one pair removed', input: 'MEDIA: ""./f.png""', text: '', media: ['"./f.png"'] },
  { name: 'unbalanced quote kept', input: 'MEDIA: "./g.png', text: '', media: ['"./g.png'] },
  {
    name: 'spaces inside a path',
    input: 'MEDIA: ./my report final.pdf',
    text: '',
    media: ['./my report final.pdf'],
  },
  {
    name: 'url',
    input: 'See\nMEDIA: https://example.com/a.png',
    text: 'See',
    media: ['https://example.com/a.png'],
  },
  { name: 'empty reference is text', input: 'MEDIA:\nMEDIA:   ', text: 'MEDIA:\nMEDIA:', media: [] },
  { name: 'empty quotes are text', input: 'MEDIA: ""', text: 'MEDIA: ""', media: [] },
  {
    name: 'mid-line mention is text',
    input: 'Use MEDIA: ./x.png to attach',
    text: 'Use MEDIA: ./x.png to attach',
    media: [],
  },
  {
    name: 'fenced code block',
    input: 'Here you go.\nMEDIA: ./a.png\n```\nMEDIA: ./not-this.png\n```\nAnd also:\nMEDIA: `./b file.pdf`',
    text: 'Here you go.\n```\nMEDIA: ./not-this.png\n```\nAnd also:',
    media: ['./a.png', './b file.pdf'],
  },
  {
    name: 'tilde fence with info string',
    input: '~~~sh\nMEDIA: ./no.png\n~~~\nMEDIA: ./yes.png',
    text: '~~~sh\nMEDIA: ./no.png\n~~~',
    media: ['./yes.png'],
  },
  {
    name: 'a shorter fence does not close a longer one',
    input: '````\n```\nMEDIA: ./no.png\n````\nMEDIA: ./yes.png',
    text: '````\n```\nMEDIA: ./no.png\n````',
    media: ['./yes.png'],
  },
  {
    name: 'unclosed fence runs to the end',
    input: 'x\n```\nMEDIA: ./no.png',
    text: 'x\n```\nMEDIA: ./no.png',
    media: [],
  },
  { name: 'inline code on one line', input: '`MEDIA: ./no.png`', text: '`MEDIA: ./no.png`', media: [] },
  {
    name: 'inline code across lines',
    input: 'see `code\nMEDIA: ./no.png\nend` done',
    text: 'see `code\nMEDIA: ./no.png\nend` done',
    media: [],
  },
  {
    name: 'spans that open and close on their own lines cover no line start',
    input: 'run `a`\nMEDIA: ./yes.png\nthen `b`',
    text: 'run `a`\nthen `b`',
    media: ['./yes.png'],
  },
  {
    name: 'a lone backtick is not a span',
    input: 'it`s\nMEDIA: ./yes.png',
    text: 'it`s',
    media: ['./yes.png'],
  },
  {
    name: 'blank runs left behind collapse to one',
    input: 'A\n\nMEDIA: ./1.png\n\n\nMEDIA: ./2.png\n\nB',
    text: 'A\n\nB',
    media: ['./1.png', './2.png'],
  },
  { name: 'blank runs elsewhere are kept', input: 'A\n\n\nB', text: 'A\n\n\nB', media: [] },
  { name: 'duplicates once', input: 'MEDIA: ./a.png\nMEDIA: ./a.png', text: '', media: ['./a.png'] },
  {
    name: 'bold label is text',
    input: '**Media:** 1 photo attached',
    text: '**Media:** 1 photo attached',
    media: [],
  },
  { name: 'CRLF', input: 'Hi\r\nMEDIA: ./a.png\r\n', text: 'Hi', media: ['./a.png'] },
];

describe('extractMedia', () => {
  it.each(cases)('$name', ({ input, text, media }) => {
    expect(extractMedia(input)).toEqual({ text, media });
  });

  it('merges media of several messages in order without duplicates', () => {
    expect(mergeMedia([['./a', './b'], ['./b', './c'], [], ['./a']])).toEqual(['./a', './b', './c']);
  });

  it('never finds a reference inside a fenced block (property)', () => {
    const line = fc.string({ maxLength: 30 }).filter((s) => !s.includes('\n') && !s.includes('`'));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 5 }), fc.array(line, { maxLength: 5 }), (before, path) => {
        const body = path.map((p) => `MEDIA: ./${p}x`);
        const input = [...before.map((b) => `say ${b}`), '```', ...body, '```'].join('\n');
        expect(extractMedia(input).media).toEqual([]);
      }),
    );
  });

  it('finds every reference line outside code, in order (property)', () => {
    // Five or more words with no folder and no extension read as a sentence and stay text (D32,
    // tested on its own above); every other name of this shape is a reference.
    const path = fc
      .stringMatching(/^[a-z0-9][a-z0-9 ._/-]{0,20}[a-z0-9]$/)
      .filter((p) => p.split(/\s+/).length < 5 || p.includes('/') || /\.[a-z0-9]{1,10}$/.test(p));
    fc.assert(
      fc.property(fc.uniqueArray(path, { maxLength: 6 }), (paths) => {
        const input = paths.map((p, i) => `line ${i}\nMEDIA: ${p}`).join('\n');
        const r = extractMedia(input);
        expect(r.media).toEqual(paths);
        expect(r.text).not.toMatch(/^\s*media:/im);
      }),
    );
  });
});

describe('extractMedia without any reference', () => {
  it('gives the text back with CRLF as LF, trimmed, whatever else it holds (property)', () => {
    // Text with no `media:` anywhere cannot hold a reference, code fences and spans included.
    const piece = fc.constantFrom('\n', '\r\n', ' ', '```', '`', '~~~', 'MEDIA', ':', 'x', '\n\n', 'med ia:');
    const text = fc
      .array(fc.oneof(piece, fc.string({ maxLength: 8 })), { maxLength: 30 })
      .map((a) => a.join(''));
    fc.assert(
      fc.property(
        text.filter((s) => !/media:/i.test(s)),
        (s) => {
          expect(extractMedia(s)).toEqual({ text: s.replace(/\r\n/g, '\n').trim(), media: [] });
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('a MEDIA: line whose target is plainly not a path or URL stays text (D32)', () => {
  const big = 'x'.repeat(10 * 1024);
  it.each([
    ['a JSON object', 'MEDIA: {"type":"image","path":"./a.png"}'],
    ['the first line of a JSON blob', 'MEDIA: {\n  "path": "./a.png"\n}'],
    ['a JSON array', 'MEDIA: ["./a.png", "./b.png"]'],
    ['10 KB of text', `MEDIA: ${big}`],
    ['a sentence', 'MEDIA: the chart is attached below for your review'],
    ['a control character', 'MEDIA: ./a\u0007.png'],
    ['a file name longer than any file system allows', `MEDIA: ./${'n'.repeat(300)}.png`],
  ])('%s', (_name, input) => {
    const r = extractMedia(input);
    expect(r.media).toEqual([]);
    expect(r.text).toBe(input.trim());
  });

  it.each([
    ['a path with spaces', 'MEDIA: ./my report final.pdf', './my report final.pdf'],
    ['brackets in a name', 'MEDIA: ./[draft] notes.pdf', './[draft] notes.pdf'],
    [
      'a long sentence-like name with an extension',
      'MEDIA: notes from the big team meeting.md',
      'notes from the big team meeting.md',
    ],
    [
      'a long URL with a query',
      `MEDIA: https://example.com/a.png?sig=${'a'.repeat(1500)}`,
      `https://example.com/a.png?sig=${'a'.repeat(1500)}`,
    ],
    ['a bare name', 'MEDIA: report', 'report'],
  ])('still a reference: %s', (_name, input, ref) => {
    expect(extractMedia(input).media).toEqual([ref]);
  });
});
