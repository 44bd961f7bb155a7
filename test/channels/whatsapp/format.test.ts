import { describe, expect, it } from 'vitest';
import { markdownToWhatsApp } from '../../../src/channels/whatsapp/format.js';

describe('markdownToWhatsApp', () => {
  it.each([
    ['**bold**', '*bold*'],
    ['__bold__', '*bold*'],
    ['*italic*', '_italic_'],
    ['_italic_', '_italic_'],
    ['~~gone~~', '~gone~'],
    ['**bold** and *italic*', '*bold* and _italic_'],
    ['# Title', '*Title*'],
    ['### **Sub** title ###', '*Sub title*'],
    ['* one\n* two', '- one\n- two'],
    ['+ item', '- item'],
    ['- item', '- item'],
    ['[docs](https://example.com/d)', 'docs (https://example.com/d)'],
    ['[https://x.io](https://x.io)', 'https://x.io'],
    ['2 * 3 * 4', '2 * 3 * 4'],
    ['snake_case_name', 'snake_case_name'],
    ['plain text', 'plain text'],
    ['***both***', '*_both_*'],
    ['![chart](https://x.io/c.png)', 'chart (https://x.io/c.png)'],
    // Web addresses stay exactly as written, bare or in a link.
    [
      'see https://github.com/o/r/blob/main/pkg/__init__.py and **this**',
      'see https://github.com/o/r/blob/main/pkg/__init__.py and *this*',
    ],
    ['[the *fix*](https://x.io/a_b_/c?q=*x*)', 'the _fix_ (https://x.io/a_b_/c?q=*x*)'],
    ['https://x.io/~~a~~ *b*', 'https://x.io/~~a~~ _b_'],
    ['\u00020\u0002 **x**', '\u00020\u0002 *x*'],
  ])('%j → %j', (md, wa) => {
    expect(markdownToWhatsApp(md)).toBe(wa);
  });

  it('leaves fenced code blocks byte for byte', () => {
    const code = '```ts\nconst a = **b** * c; // *not italic*\n# not a heading\n```';
    expect(markdownToWhatsApp(`**Fix:**\n${code}\nDone *now*.`)).toBe(`*Fix:*\n${code}\nDone _now_.`);
  });

  it('leaves inline code alone', () => {
    expect(markdownToWhatsApp('run `rm **x**` then **go**')).toBe('run `rm **x**` then *go*');
  });

  it('protects an unclosed fence to the end', () => {
    expect(markdownToWhatsApp('**a**\n```\n**b**')).toBe('*a*\n```\n**b**');
  });
});
