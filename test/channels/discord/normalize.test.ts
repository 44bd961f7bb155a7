// One MESSAGE_CREATE → what the gate sees, or why it is ignored; and which attachment addresses are fetched.
import type { GatewayMessageCreateDispatchData } from '@discordjs/core';
import { describe, expect, it } from 'vitest';
import { attachmentUrlAllowed } from '../../../src/channels/discord/media-in.js';
import { classify } from '../../../src/channels/discord/normalize.js';
import { BOT_ID, GUILD_ID, message, USER_ID } from './fake-discord.js';

const me = { id: BOT_ID, username: 'agent_bot' };
const m = (o: Parameters<typeof message>[0], extra: Record<string, unknown> = {}) =>
  ({ ...message(o), ...extra }) as unknown as GatewayMessageCreateDispatchData;

describe('classify', () => {
  it.each([
    ['our own message', m({ content: 'x', author: BOT_ID }), 'own_message'],
    ['another bot', m({ content: 'x', bot: true, author: '777777777777777777' }), 'from_a_bot'],
    ['a webhook', m({ content: 'x' }, { webhook_id: '1' }), 'from_a_bot'],
    ['a system message (pin)', m({ content: '' }, { type: 6 }), 'system_message'],
    [
      'empty content (Message Content intent off)',
      m({ content: '' }),
      'no_content (is the Message Content intent on?)',
    ],
  ])('ignores %s', (_name, payload, reason) => {
    expect(classify(payload, me)).toEqual({ type: 'ignore', reason });
  });

  it('a mention is seen, and stripped from the front of the text so commands and answers parse', () => {
    const c = classify(m({ guild: GUILD_ID, content: `<@${BOT_ID}> /new fix it` }), me);
    expect(c).toMatchObject({
      type: 'message',
      msg: { mentionsBot: true, text: '/new fix it', guildId: GUILD_ID, senderId: USER_ID },
    });
    const nick = classify(m({ guild: GUILD_ID, content: `<@!${BOT_ID}>, 1` }), me);
    expect(nick).toMatchObject({ msg: { mentionsBot: true, text: '1' } });
  });

  it('a reply to the bot is seen without a mention; a DM has no server', () => {
    expect(classify(m({ guild: GUILD_ID, content: 'and?', replyToBot: true }), me)).toMatchObject({
      msg: { repliesToBot: true, mentionsBot: false },
    });
    const dm = classify(m({ content: 'hi' }), me);
    expect(dm.type === 'message' && dm.msg.guildId).toBe(undefined);
  });

  it('an attachment with no text is a message, its kind from its type', () => {
    const c = classify(
      m({
        content: '',
        attachments: [
          {
            url: 'https://cdn.discordapp.com/a/b.ogg',
            filename: 'v.ogg',
            size: 9,
            content_type: 'audio/ogg',
          },
        ],
      }),
      me,
    );
    expect(c).toMatchObject({
      type: 'message',
      msg: { attachments: [{ kind: 'voice', sizeBytes: 9, fileName: 'v.ogg' }] },
    });
  });
});

describe('attachmentUrlAllowed', () => {
  it.each([
    ['the CDN', 'https://cdn.discordapp.com/attachments/1/2/a.png?ex=1', undefined, true],
    ['the media proxy', 'https://media.discordapp.net/attachments/1/2/a.png', undefined, true],
    ['the CDN over http', 'http://cdn.discordapp.com/a.png', undefined, false],
    ['a look-alike host', 'https://cdn.discordapp.com.evil.example/a.png', undefined, false],
    ['credentials in the address', 'https://x@cdn.discordapp.com/a.png', undefined, false],
    ['loopback without an API root', 'http://127.0.0.1:8080/a.png', undefined, false],
    [
      'the API root origin (a proxy, the tests)',
      'http://127.0.0.1:8080/attachments/a',
      'http://127.0.0.1:8080/api',
      true,
    ],
    ['another port than the API root', 'http://127.0.0.1:9999/a', 'http://127.0.0.1:8080/api', false],
    ['a private address', 'https://10.0.0.1/a.png', undefined, false],
    ['not a URL', 'cdn.discordapp.com/a', undefined, false],
  ])('%s', (_name, url, root, expected) => {
    expect(attachmentUrlAllowed(url, root)).toBe(expected);
  });
});
