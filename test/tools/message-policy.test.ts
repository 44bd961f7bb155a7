// The pure rules of edit_message and add_reaction, as tables: which strings are one emoji, and what
// each combination of id, message, chat and channel decides (the sentence the agent reads).
import { describe, expect, it } from 'vitest';
import { messageId as telegramMessageId } from '../../src/channels/telegram/changes.js';
import { parseMessageRef } from '../../src/core/message-ref.js';
import type { MessageRefRow } from '../../src/store/contract/outbox.js';
import { type ChangeInput, decideChange, isOneEmoji } from '../../src/tools/message-policy.js';

describe('isOneEmoji', () => {
  it.each([
    ['👍', true],
    ['👍🏽', true], // a skin tone
    ['🇫🇷', true], // a flag
    ['👨‍👩‍👧', true], // a joined sequence
    ['❤️', true],
    ['ok', false],
    ['👍👍', false],
    [':)', false],
    ['👍 ', false],
    ['', false],
    ['1', false],
    ['<b>', false],
  ])('%j → %s', (s, want) => {
    expect(isOneEmoji(s)).toBe(want);
  });
});

describe('parseMessageRef', () => {
  it.each([
    ['out:12', { type: 'out', id: 12 }],
    ['in:3', { type: 'in', id: 3 }],
    [' out:12 ', { type: 'out', id: 12 }],
    ['out:0', undefined],
    ['out:-1', undefined],
    ['msg:1', undefined],
    ['12', undefined],
    ['out:1e3', undefined],
    ['out:99999999999999999', undefined],
  ])('%j → %j', (s, want) => {
    expect(parseMessageRef(s)).toEqual(want);
  });
});

const CHAT = 'telegram:42';
const ours: MessageRefRow = { chat: CHAT, own: true, status: 'sent', providerId: '500' };
const theirs: MessageRefRow = { chat: CHAT, own: false, status: 'received', providerId: '77' };
const base = (over: Partial<ChangeInput>): ChangeInput => ({
  kind: 'edit',
  ref: 'out:1',
  parsed: true,
  row: ours,
  chat: CHAT,
  capable: true,
  text: 'new',
  textLimit: 4096,
  ...over,
});

describe('decideChange', () => {
  it.each<[string, Partial<ChangeInput>, string | undefined]>([
    ['an edit of our own sent message', {}, undefined],
    [
      'an edit of one still waiting to go out (it is sent first, in order)',
      { row: { ...ours, status: 'pending' } },
      undefined,
    ],
    ['a channel that cannot edit', { capable: false }, 'this channel cannot edit messages'],
    [
      'a channel that cannot react',
      { kind: 'react', emoji: '👍', capable: false },
      'this channel cannot react to messages',
    ],
    ['an id of no form of ours', { ref: 'abc', parsed: false }, '"abc" is not a message id'],
    ['no such message', { row: undefined }, 'no message out:1 in this chat'],
    [
      "another chat's message: as if it did not exist",
      { row: { ...ours, chat: 'telegram:43' } },
      'no message out:1 in this chat',
    ],
    ["an edit of the person's message", { ref: 'in:3', row: theirs }, 'only messages you sent can be edited'],
    ['an edit of a message never delivered', { row: { ...ours, status: 'failed' } }, 'was never delivered'],
    ['an empty new text', { text: '  ' }, 'the new text is empty'],
    ['a text longer than one message', { text: 'x'.repeat(4097) }, 'at most 4096'],
    [
      "a reaction on the person's message",
      { kind: 'react', ref: 'in:3', row: theirs, emoji: '👍' },
      undefined,
    ],
    ['a reaction on our own message', { kind: 'react', emoji: '🎉' }, undefined],
    ['a reaction that is a word', { kind: 'react', emoji: 'ok' }, 'a reaction is exactly one emoji'],
    ['a reaction of two emoji', { kind: 'react', emoji: '👍👍' }, 'a reaction is exactly one emoji'],
    [
      "a reaction on another chat's message",
      { kind: 'react', emoji: '👍', row: { ...theirs, chat: 'twilio:+1555' } },
      'no message out:1 in this chat',
    ],
  ])('%s', (_name, over, error) => {
    const d = decideChange(base(over));
    if (error === undefined) expect(d).toEqual({ ok: true });
    else {
      expect(d.ok).toBe(false);
      expect((d as { error: string }).error).toContain(error);
    }
  });
});

describe("Telegram's message id in what the relay holds", () => {
  it.each([
    ['500', 500],
    ['42:77', 77],
    ['43:77', undefined], // another chat's message
    ['-100123:5', undefined],
    ['abc', undefined],
    ['0', undefined],
  ])('%j in chat 42 → %j', (id, want) => {
    expect(telegramMessageId('42', id)).toBe(want);
  });
  it('a group chat id with its minus sign', () => {
    expect(telegramMessageId('-100123', '-100123:5')).toBe(5);
  });
});
