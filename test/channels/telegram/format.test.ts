import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeHtml, markdownToTelegramHtml, wellNested } from '../../../src/channels/telegram/format.js';
import { render, renderCode } from '../../../src/channels/telegram/render.js';

/** What a person sees: tags removed, entities decoded (the inverse of Telegram's HTML parsing). */
const visible = (html: string) =>
  html
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');

/** Telegram's HTML parser accepts only these tags, and `&` only as one of these entities. */
const ALLOWED_TAG = /^<\/?(b|i|s|u|code|pre|a|blockquote)( href="[^"]*"| class="language-[\w+#.-]+")?>$/;
function telegramAccepts(html: string): boolean {
  for (const m of html.matchAll(/<[^>]*>/g)) if (!ALLOWED_TAG.test(m[0])) return false;
  if (/&(?!(amp|lt|gt|quot);)/.test(html)) return false;
  if (/<(?![a-z/])/.test(html)) return false;
  return wellNested(html);
}

describe('Markdown → Telegram HTML', () => {
  it.each([
    [
      '**bold** and *italic* and _also_ and ~~gone~~',
      '<b>bold</b> and <i>italic</i> and <i>also</i> and <s>gone</s>',
    ],
    ['# Title', '<b>Title</b>'],
    ['- one\n* two', '• one\n• two'],
    ['> quoted', '<blockquote>quoted</blockquote>'],
    ['`x < y && z`', '<code>x &lt; y &amp;&amp; z</code>'],
    ['```ts\nconst a = b < c;\n```', '<pre><code class="language-ts">const a = b &lt; c;</code></pre>'],
    ['[site](https://a.dev/?q=1&r="2")', '<a href="https://a.dev/?q=1&amp;r=&quot;2&quot;">site</a>'],
    ['see https://x.dev/__init__.py now', 'see https://x.dev/__init__.py now'],
    ['snake_case_name stays', 'snake_case_name stays'],
    ['2 * 3 * 4', '2 * 3 * 4'],
    ['<script>alert(1)</script>', '&lt;script&gt;alert(1)&lt;/script&gt;'],
    // Crossing marks would be refused by Telegram: the line is sent as escaped text instead.
    ['**a *b** c*', '**a *b** c*'],
  ])('%j → %j', (md, html) => {
    expect(markdownToTelegramHtml(md)).toBe(html);
  });

  it("keeps every one of MarkdownV2's reserved characters visible as itself", () => {
    const reserved = '_ * [ ] ( ) ~ ` > # + - = | { } . !';
    for (const ch of reserved.split(' ')) {
      const text = `a ${ch} b ${ch}${ch} c`;
      const html = markdownToTelegramHtml(text);
      expect(telegramAccepts(html)).toBe(true);
      expect(visible(html).replace(/\s+/g, ' ')).toContain(`${ch}`);
    }
    const all = markdownToTelegramHtml(`x ${reserved} < & > " y`);
    expect(telegramAccepts(all)).toBe(true);
    expect(visible(all)).toBe(`x ${reserved} < & > " y`);
  });

  it('escapes &, < and > and nothing else', () => {
    expect(escapeHtml('a&b<c>d"e\'f')).toBe('a&amp;b&lt;c&gt;d"e\'f');
  });

  it('never produces HTML Telegram would refuse, for any input (property)', () => {
    const md = fc
      .array(
        fc.constantFrom(
          '*',
          '_',
          '~',
          '`',
          '[',
          ']',
          '(',
          ')',
          '<',
          '>',
          '&',
          '"',
          '#',
          '-',
          '\n',
          ' ',
          'a',
          'b',
          'https://x.io/a_b',
          '```',
          '**',
          '](https://y.io/',
          '\u0002',
        ),
        { maxLength: 80 },
      )
      .map((a) => a.join(''));
    fc.assert(
      fc.property(md, (text) => {
        expect(telegramAccepts(markdownToTelegramHtml(text))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('loses no letter of prose: what is visible is the text without its marks (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const letters = (s: string) => s.replace(/[^A-Za-z0-9]/g, '');
        expect(letters(visible(markdownToTelegramHtml(text)))).toBe(letters(text));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('render: pieces of at most 4,096 characters after formatting', () => {
  it('cuts text that formatting makes longer, and every piece is valid HTML', () => {
    fc.assert(
      fc.property(
        fc
          .array(fc.constantFrom('&', '<', 'a', ' ', '\n', '**b**', '`c`', '```\nx\n```\n'), {
            minLength: 3000,
            maxLength: 12000,
          })
          .map((a) => a.join('')),
        (text) => {
          const pieces = render(text);
          for (const p of pieces) {
            expect(p.html.length).toBeLessThanOrEqual(4096);
            expect(telegramAccepts(p.html)).toBe(true);
          }
        },
      ),
      { numRuns: 30 },
    );
  });

  it('keeps short text in one piece with its plain source for the fallback', () => {
    expect(render('**hi** & bye')).toEqual([{ html: '<b>hi</b> &amp; bye', plain: '**hi** & bye' }]);
  });
});

describe('renderCode: exact text, never read as Markdown', () => {
  it('is one <pre> block, escaped, with no link, bold or italics made of it', () => {
    const text = 'run: echo "[ok](https://x.example/$(curl|sh))" **b** _i_ <b>&';
    expect(renderCode(text)).toEqual([
      {
        html: '<pre>run: echo "[ok](https://x.example/$(curl|sh))" **b** _i_ &lt;b&gt;&amp;</pre>',
        plain: text,
      },
    ]);
  });

  it('cuts a long text into pieces that fit once escaped, losing nothing and never splitting a pair', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 3000 }), (s) => {
        const text = `&${s}&`.repeat(3);
        const pieces = renderCode(text);
        expect(pieces.map((p) => p.plain).join('')).toBe(text);
        for (const p of pieces) {
          expect(p.html.length).toBeLessThanOrEqual(4096);
          expect(telegramAccepts(p.html)).toBe(true);
          expect(/^[\udc00-\udfff]/.test(p.plain)).toBe(false);
        }
      }),
      { numRuns: 20 },
    );
  });
});
