// Hostile and ordinary Markdown an agent may write, one row each: what Discord receives.
import { describe, expect, it } from 'vitest';
import { toDiscord, toDiscordCode } from '../../../src/channels/discord/format.js';
import { chunkText } from '../../../src/core/chunk.js';

const Z = '\u200b';

describe('toDiscord', () => {
  it.each([
    ['plain text', 'hello **world**', 'hello **world**'],
    ['@everyone cannot ping', 'hey @everyone look', `hey @${Z}everyone look`],
    ['@here cannot ping', '@here now', `@${Z}here now`],
    ['case does not help', '@EVERYONE', `@${Z}EVERYONE`],
    // Neutralised wherever it stands: cheaper than knowing exactly where Discord would see it.
    ['even inside an address', 'mail a@here.com', `mail a@${Z}here.com`],
    [
      'a user mention is left (allowed_mentions stops the ping)',
      '<@123456789012345678> hi',
      '<@123456789012345678> hi',
    ],
    ['inside inline code nothing changes', 'run `@everyone`', 'run `@everyone`'],
    [
      'inside a code block nothing changes',
      '```\n@here [https://a.example](https://b.example)\n```',
      '```\n@here [https://a.example](https://b.example)\n```',
    ],
    [
      'a masked link whose label is an address shows its target',
      '[https://bank.example](https://evil.example/x)',
      'https://bank.example (<https://evil.example/x>)',
    ],
    [
      'a label that is a bare domain too',
      'see [bank.example](https://evil.example)',
      'see bank.example (<https://evil.example>)',
    ],
    ['an honest masked link stays', '[the docs](https://docs.example)', '[the docs](https://docs.example)'],
    [
      'a table goes in a code block',
      '| a | b |\n|---|---|\n| 1 | 2 |',
      '```\n| a | b |\n|---|---|\n| 1 | 2 |\n```',
    ],
    [
      'a table inside a code block is not fenced twice',
      '```\n| a | b |\n|---|---|\n```',
      '```\n| a | b |\n|---|---|\n```',
    ],
    [
      'a table cell holding ` stays inside the block',
      '| `a` | b |\n|---|---|',
      '```\n| `a` | b |\n|---|---|\n```',
    ],
    [
      '@everyone in a table is shown, not pinged (in code)',
      '| @everyone |\n|---|',
      '```\n| @everyone |\n|---|\n```',
    ],
  ])('%s', (_name, input, expected) => {
    expect(toDiscord(input)).toBe(expected);
  });

  it('a long reply cut by the one splitter stays within 2,000 characters a message', () => {
    const text = toDiscord(`${'@everyone '.repeat(300)}\n${'word '.repeat(600)}`);
    const parts = chunkText(text, { limit: 2000, fences: true });
    expect(parts.length).toBeGreaterThan(1);
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(2000);
    expect(parts.join(' ')).not.toMatch(/@everyone/);
  });
});

describe('toDiscordCode', () => {
  it.each([
    ['a command', 'rm -rf ~/tmp', '```\nrm -rf ~/tmp\n```'],
    ['marks stay literal', '**x** @everyone', '```\n**x** @everyone\n```'],
    ['a fence inside cannot end the block', 'a```b', `\`\`\`\na\`${Z}\`${Z}\`b\n\`\`\``],
  ])('%s', (_name, input, expected) => {
    expect(toDiscordCode(input)).toBe(expected);
  });
});
