// What an event file may say, as a table: every good shape and every way to get it wrong.
import { describe, expect, it } from 'vitest';
import { checkEventText, type ResolveChat } from '../../src/events/event-file.js';
import { chatResolver } from '../../src/events/resolve.js';

const NOW = Date.parse('2026-07-01T10:00:00Z');
const resolve: ResolveChat = chatResolver(
  { ci: 'telegram:123456789' },
  (c) => c === 'telegram' || c === 'twilio',
);
const known = (k: string) => k === 'claude' || k === 'codex';
const check = (v: unknown) =>
  checkEventText(typeof v === 'string' ? v : JSON.stringify(v), resolve, known, NOW);

describe('checkEventText', () => {
  const good: [string, unknown, object][] = [
    [
      'chat key and text',
      { chat: 'telegram:42', text: 'CI failed' },
      { chat: 'telegram:42', dueAt: NOW, options: {} },
    ],
    ['a target name', { chat: 'ci', text: 'x' }, { chat: 'telegram:123456789' }],
    [
      'a future time',
      { chat: 'ci', text: 'x', at: '2026-07-02T09:00:00+02:00' },
      { dueAt: Date.parse('2026-07-02T07:00:00Z') },
    ],
    [
      'a past time keeps its time',
      { chat: 'ci', text: 'x', at: '2026-06-01T00:00:00Z' },
      { dueAt: Date.parse('2026-06-01T00:00:00Z') },
    ],
    [
      'every option',
      { chat: 'ci', text: 'x', agent: 'codex', session: 'fresh', quiet: true, activeHours: true },
      { options: { agent: 'codex', session: 'fresh', quiet: true, activeHours: true } },
    ],
    ['quiet false is no option', { chat: 'ci', text: 'x', quiet: false }, { options: {} }],
  ];
  it.each(good)('accepts %s', (_n, input, want) => {
    const r = check(input);
    expect(r.ok, JSON.stringify(r)).toBe(true);
    if (r.ok) expect(r.event).toMatchObject(want);
  });

  const bad: [string, unknown, RegExp][] = [
    ['not JSON', '{"chat": "ci", text', /^not JSON/],
    ['JSON but an array', [], /expected object/],
    ['empty text', { chat: 'ci', text: '  ' }, /^text:/],
    ['no text', { chat: 'ci' }, /^text:/],
    ['an unknown key', { chat: 'ci', text: 'x', prompt: 'y' }, /prompt/],
    ['an unknown target name', { chat: 'nobody', text: 'x' }, /^chat: "nobody" is not a name in targets/],
    ['an unknown channel', { chat: 'fax:123', text: 'x' }, /^chat: "fax" is not a channel/],
    ['a channel this relay does not run', { chat: 'console:me', text: 'x' }, /not running in this relay/],
    ['a bad chat id', { chat: 'telegram:abc', text: 'x' }, /^chat:.*not a Telegram chat id/],
    ['a time without zone', { chat: 'ci', text: 'x', at: '2026-07-02T09:00:00' }, /^at:/],
    ['not a time', { chat: 'ci', text: 'x', at: 'tomorrow' }, /^at:/],
    ['a bad session', { chat: 'ci', text: 'x', session: 'mine' }, /^session:/],
    ['an unknown agent', { chat: 'ci', text: 'x', agent: 'gpt' }, /^agent: "gpt" is not an agent kind/],
    ['quiet as a string', { chat: 'ci', text: 'x', quiet: 'yes' }, /^quiet:/],
    ['text too long', { chat: 'ci', text: 'x'.repeat(16_001) }, /^text:/],
  ];
  it.each(bad)('rejects %s, saying why', (_n, input, why) => {
    const r = check(input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(why);
  });
});
