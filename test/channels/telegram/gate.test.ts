import { describe, expect, it } from 'vitest';
import { type GateConfig, gate } from '../../../src/channels/telegram/gate.js';
import { classify, fileRefOf, type NormalizedMessage } from '../../../src/channels/telegram/normalize.js';

const me = { id: 999, username: 'agent_bot' };
const base: NormalizedMessage = {
  updateId: 1,
  chatId: '42',
  isGroup: false,
  senderId: '42',
  messageId: 1,
  text: 'hi',
  mentionsBot: false,
  repliesToBot: false,
  at: 0,
};
const cfg: GateConfig = {
  allowFrom: ['42'],
  groups: ['-100'],
  groupAllowFrom: ['42'],
  groupAlways: [],
  mentionPatterns: [/\bagent\b/i],
};

describe('gate (pure)', () => {
  it.each<[string, Partial<NormalizedMessage>, Partial<GateConfig>, ReturnType<typeof gate>]>([
    ['allowed DM', {}, {}, { type: 'run', trigger: 'direct' }],
    ['unknown DM sender', { senderId: '7', chatId: '7' }, {}, { type: 'drop', reason: 'not_allowed' }],
    ['anyone with *', { senderId: '7', chatId: '7' }, { allowFrom: '*' }, { type: 'run', trigger: 'direct' }],
    ['empty allowFrom: nobody', {}, { allowFrom: [] }, { type: 'drop', reason: 'not_allowed' }],
    [
      'group not listed',
      { isGroup: true, chatId: '-5', mentionsBot: true },
      {},
      { type: 'drop', reason: 'group_not_allowed' },
    ],
    [
      'group, not addressed',
      { isGroup: true, chatId: '-100' },
      {},
      { type: 'skip', reason: 'not_addressed' },
    ],
    [
      'group, mention',
      { isGroup: true, chatId: '-100', mentionsBot: true },
      {},
      { type: 'run', trigger: 'mention' },
    ],
    [
      'group, reply to bot',
      { isGroup: true, chatId: '-100', repliesToBot: true },
      {},
      { type: 'run', trigger: 'reply' },
    ],
    [
      'group, pattern',
      { isGroup: true, chatId: '-100', text: 'hey Agent, go' },
      {},
      { type: 'run', trigger: 'pattern' },
    ],
    [
      'group always',
      { isGroup: true, chatId: '-100' },
      { groupAlways: ['-100'] },
      { type: 'run', trigger: 'always' },
    ],
    [
      'group, sender not allowed',
      { isGroup: true, chatId: '-100', senderId: '7', mentionsBot: true },
      {},
      { type: 'skip', reason: 'sender_not_allowed' },
    ],
  ])('%s', (_name, msg, over, want) => {
    expect(gate({ ...base, ...msg }, { ...cfg, ...over })).toEqual(want);
  });
});

describe('classify (pure)', () => {
  const msg = (m: Record<string, unknown>) =>
    ({
      update_id: 5,
      message: {
        message_id: 3,
        date: 10,
        chat: { id: -100, type: 'supergroup' },
        from: { id: 42, is_bot: false, first_name: 'A', last_name: 'B' },
        ...m,
      },
    }) as never;

  it.each([
    ['@agent_bot 1', '1'],
    ['@Agent_Bot, 2', '2'],
    ['@agent_bot: /approve', '/approve'],
    ['@agent_bot', '@agent_bot'],
    ['@other_bot 1', '@other_bot 1'],
    ['hey @agent_bot 1', 'hey @agent_bot 1'],
  ])('a leading mention of the bot is no part of what is said: %j → %j', (text, want) => {
    const m = classify(msg({ text, entities: [{ type: 'mention', offset: 0, length: 10 }] }), me, 1e6);
    expect(m.type === 'message' && m.msg.text).toBe(want);
  });

  it('reads mentions from entities (case-insensitive), text mentions by id, and /cmd@bot', () => {
    const m1 = classify(
      msg({ text: 'yo @Agent_Bot', entities: [{ type: 'mention', offset: 3, length: 10 }] }),
      me,
      1e6,
    );
    expect(m1.type === 'message' && m1.msg.mentionsBot).toBe(true);
    const m2 = classify(
      msg({
        text: 'yo Agent',
        entities: [{ type: 'text_mention', offset: 3, length: 5, user: { id: 999 } }],
      }),
      me,
      1e6,
    );
    expect(m2.type === 'message' && m2.msg.mentionsBot).toBe(true);
    // "@agent_bot" written as plain text without an entity (inside code, say) is no mention.
    const m3 = classify(
      msg({ text: '`@agent_bot`', entities: [{ type: 'code', offset: 0, length: 12 }] }),
      me,
      1e6,
    );
    expect(m3.type === 'message' && m3.msg.mentionsBot).toBe(false);
    const m4 = classify(
      msg({ text: '/status@agent_bot', entities: [{ type: 'bot_command', offset: 0, length: 17 }] }),
      me,
      1e6,
    );
    expect(m4.type === 'message' && m4.msg).toMatchObject({
      text: '/status',
      mentionsBot: true,
      senderName: 'A B',
      at: 10_000,
    });
    const m5 = classify(msg({ text: '/status@other_bot' }), me, 1e6);
    expect(m5.type === 'message' && m5.msg.text).toBe('/status@other_bot');
    // The first message of every new private chat: shown the commands, not sent to the agent.
    const m6 = classify(msg({ text: '/start deep-link-payload' }), me, 1e6);
    expect(m6.type === 'message' && m6.msg.text).toBe('/help');
  });

  it('ignores edits, bots, empty messages; takes captions', () => {
    expect(classify({ update_id: 1, edited_message: {} } as never, me, 1e6)).toEqual({
      type: 'ignore',
      reason: 'not_a_new_message',
    });
    expect(classify(msg({ text: 'x', from: { id: 5, is_bot: true, first_name: 'B' } }), me, 1e6).type).toBe(
      'ignore',
    );
    expect(classify(msg({ sticker: {} }), me, 1e6).type).toBe('ignore');
    const c = classify(
      msg({ caption: 'look', document: { file_id: 'd', file_unique_id: 'u', file_size: 3 } }),
      me,
      1e6,
    );
    expect(c.type === 'message' && c.msg).toMatchObject({
      text: 'look',
      media: { kind: 'document', fileId: 'd', sizeBytes: 3 },
    });
  });

  it('picks the largest photo size under the cap, or marks the photo too large', () => {
    const photo = [
      { file_id: 'a', file_unique_id: 'a', width: 1, height: 1, file_size: 100 },
      { file_id: 'c', file_unique_id: 'c', width: 3, height: 3, file_size: 10_000 },
      { file_id: 'b', file_unique_id: 'b', width: 2, height: 2, file_size: 1000 },
    ];
    expect(fileRefOf({ photo } as never, 5000)).toMatchObject({ fileId: 'b', sizeBytes: 1000 });
    expect(fileRefOf({ photo } as never, 50)).toMatchObject({ fileId: 'a', tooLarge: true });
  });
});
