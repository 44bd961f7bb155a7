// The gate, one row per case: who gets in, in a DM and in a server channel.
import { describe, expect, it } from 'vitest';
import { type GateConfig, type GateDecision, gate } from '../../../src/channels/discord/gate.js';
import type { NormalizedMessage } from '../../../src/channels/discord/normalize.js';

const ME = '222222222222222222';
const OTHER = '333333333333333333';
const GUILD = '444444444444444444';
const CH = '555555555555555555';
const cfg: GateConfig = {
  allowFrom: [ME],
  guilds: [GUILD],
  groupAllowFrom: [ME],
  groupAlways: ['777777777777777777'],
  mentionPatterns: [/\bagent\b/i],
};
const msg = (o: Partial<NormalizedMessage>): NormalizedMessage => ({
  id: '1',
  channelId: CH,
  senderId: ME,
  text: 'hi',
  mentionsBot: false,
  repliesToBot: false,
  attachments: [],
  at: 0,
  ...o,
});

describe('gate', () => {
  it.each<[string, Partial<NormalizedMessage>, GateConfig, GateDecision]>([
    ['a DM from an allowed user', {}, cfg, { type: 'run', trigger: 'direct' }],
    ['a DM from a stranger', { senderId: OTHER }, cfg, { type: 'drop', reason: 'not_allowed' }],
    [
      'a DM from anyone under "*"',
      { senderId: OTHER },
      { ...cfg, allowFrom: '*' },
      { type: 'run', trigger: 'direct' },
    ],
    [
      'a server not listed',
      { guildId: '999999999999999999', mentionsBot: true },
      cfg,
      { type: 'drop', reason: 'guild_not_allowed' },
    ],
    ['a listed server, not addressed', { guildId: GUILD }, cfg, { type: 'skip', reason: 'not_addressed' }],
    [
      'a listed server, a mention',
      { guildId: GUILD, mentionsBot: true },
      cfg,
      { type: 'run', trigger: 'mention' },
    ],
    [
      'a reply to the bot needs no mention',
      { guildId: GUILD, repliesToBot: true },
      cfg,
      { type: 'run', trigger: 'reply' },
    ],
    [
      'a mention pattern',
      { guildId: GUILD, text: 'hey Agent, look' },
      cfg,
      { type: 'run', trigger: 'pattern' },
    ],
    [
      'an always channel',
      { guildId: GUILD, channelId: '777777777777777777' },
      cfg,
      { type: 'run', trigger: 'always' },
    ],
    [
      'a thread of an always channel',
      { guildId: GUILD, channelId: '888888888888888888', parentId: '777777777777777777' },
      cfg,
      { type: 'run', trigger: 'always' },
    ],
    [
      'a sender not allowed in servers, even mentioning',
      { guildId: GUILD, senderId: OTHER, mentionsBot: true },
      cfg,
      { type: 'skip', reason: 'sender_not_allowed' },
    ],
    [
      'a slash command in a listed server',
      { guildId: GUILD, slash: true },
      cfg,
      { type: 'run', trigger: 'slash' },
    ],
    [
      'a slash command from a stranger in a DM',
      { senderId: OTHER, slash: true },
      cfg,
      { type: 'drop', reason: 'not_allowed' },
    ],
  ])('%s', (_name, m, c, expected) => {
    expect(gate(msg(m), c)).toEqual(expected);
  });
});
