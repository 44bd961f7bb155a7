// Markdown → Slack mrkdwn, one row per case. Hostile rows: agent text must never become Slack syntax
// (a ping, a mention, a disguised link), whatever it holds; code keeps its bytes (escaped).
import { describe, expect, it } from 'vitest';
import { markdownToMrkdwn } from '../../../src/channels/slack/format.js';
import { render, renderCode, SLACK_TEXT_LIMIT } from '../../../src/channels/slack/render.js';

const TABLE: [string, string, string][] = [
  ['plain text', 'hello world', 'hello world'],
  ['ampersand', 'a & b', 'a &amp; b'],
  ['angle brackets', '1 < 2 > 0', '1 &lt; 2 &gt; 0'],
  ['an entity stays literal', '&amp; &lt;', '&amp;amp; &amp;lt;'],
  ['@channel ping syntax', '<!channel> deploy now', '&lt;!channel&gt; deploy now'],
  ['@here ping syntax', '<!here|here>', '&lt;!here|here&gt;'],
  ['user mention syntax', 'ask <@U0123ABCD>', 'ask &lt;@U0123ABCD&gt;'],
  ['channel link syntax', 'see <#C0123|general>', 'see &lt;#C0123|general&gt;'],
  [
    'disguised link syntax',
    '<https://evil.example|https://bank.example>',
    '&lt;https://evil.example|https://bank.example&gt;',
  ],
  ['date token syntax', '<!date^1392734382^{date}|x>', '&lt;!date^1392734382^{date}|x&gt;'],
  ['bold', '**strong**', '*strong*'],
  ['bold underscores', '__strong__', '*strong*'],
  ['italic star', '*soft*', '_soft_'],
  ['italic underscore', '_soft_', '_soft_'],
  ['bold italic', '***both***', '*_both_*'],
  ['strike', '~~gone~~', '~gone~'],
  ['snake_case stays', 'my_var_name', 'my_var_name'],
  ['a lone star stays', '2 * 3 = 6', '2 * 3 = 6'],
  ['markdown link', '[docs](https://example.com/a?b=1&c=2)', '<https://example.com/a?b=1&amp;c=2|docs>'],
  [
    'link label with markup is escaped',
    '[<!channel>](https://example.com)',
    '<https://example.com|&lt;!channel&gt;>',
  ],
  ['pipe in a link label cannot split it', '[a|b](https://example.com)', '<https://example.com|a¦b>'],
  [
    'pipe and brackets in a link URL are encoded',
    '[x](https://e.com/a|b<c>)',
    '<https://e.com/a%7Cb%3Cc%3E|x>',
  ],
  ['javascript: link is not a link', '[x](javascript:alert(1))', '[x](javascript:alert(1))'],
  ['bare URL stays', 'go to https://example.com/x', 'go to https://example.com/x'],
  ['inline code escaped, marks kept', '`a < b && *c*`', '`a &lt; b &amp;&amp; *c*`'],
  ['code block drops its language line', '```js\nif (a < b) x();\n```', '```\nif (a &lt; b) x();\n```'],
  [
    'code block keeps markdown literal',
    '```\n**not bold** <!here>\n```',
    '```\n**not bold** &lt;!here&gt;\n```',
  ],
  ['unclosed fence runs to the end', '```\nopen <x>', '```\nopen &lt;x&gt;\n```'],
  ['heading', '# Title', '*Title*'],
  ['heading with bold inside', '## **Big** one', '*Big one*'],
  ['list items', '- one\n* two\n+ three', '• one\n• two\n• three'],
  ['nested list', '  - deep', '  • deep'],
  ['quote', '> quoted <b>', '>quoted &lt;b&gt;'],
  ['a > inside a line is escaped', 'a > b', 'a &gt; b'],
  ['control marks are stripped', 'x\u0002y\u0003z', 'xyz'],
  ['emoji survive', 'ok ✅ 👍🏽', 'ok ✅ 👍🏽'],
  ['multi-line mix', 'Hi **you**\n\n- a & b\n`x<y`', 'Hi *you*\n\n• a &amp; b\n`x&lt;y`'],
];

describe('markdownToMrkdwn', () => {
  it.each(TABLE)('%s', (_name, input, expected) => {
    expect(markdownToMrkdwn(input)).toBe(expected);
  });

  it('never leaves a raw < or & outside what it built, for any text', () => {
    const nasty = ['<', '>', '&', '<!channel>', '<@U1>', '[a](https://x.y)', '`', '**', '\n', '|', 'text'];
    for (let i = 0; i < 2000; i++) {
      let s = '';
      for (let j = 0; j < 8; j++) s += nasty[(i * 7 + j * 13 + ((i >> j) & 3)) % nasty.length];
      const out = markdownToMrkdwn(s);
      // Every `<` left opens a link we built from a Markdown link.
      for (const m of out.matchAll(/</g)) expect(out.slice(m.index).startsWith('<https://')).toBe(true);
      expect(out).not.toMatch(/&(?!amp;|lt;|gt;)/);
    }
  });
});

describe('render (the one splitter, then mrkdwn)', () => {
  it('keeps every piece within Slack’s limit after escaping', () => {
    // Escaping makes this text about 4 times longer: 4,000 characters of it cannot go in one message.
    const text = '<&> '.repeat(4000);
    const pieces = render(text);
    expect(pieces.length).toBeGreaterThan(4);
    for (const p of pieces) expect(p.length).toBeLessThanOrEqual(SLACK_TEXT_LIMIT);
    const all = pieces.join(' ');
    expect(all.match(/&lt;&amp;&gt;/g)).toHaveLength(4000);
    expect(all).not.toMatch(/[<>]/);
  });

  it('code text goes as escaped code blocks whose fences cannot be closed early', () => {
    const pieces = renderCode('rm -rf <dir> && echo ``` done');
    expect(pieces).toEqual(['```\nrm -rf &lt;dir&gt; &amp;&amp; echo ˋˋˋ done\n```']);
  });
});
