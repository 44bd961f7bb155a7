// Pure policy, one row per case: which Slack events are a person's new message, what the agent reads,
// which chat it belongs to, and who gets a run.
import { describe, expect, it } from 'vitest';
import { type GateConfig, gate } from '../../../src/channels/slack/gate.js';
import { classify, plainText, type SlackMessageEvent } from '../../../src/channels/slack/normalize.js';
import { gateConfig } from '../../../src/channels/slack/settings.js';
import { configSchema } from '../../../src/config/schema.js';

const ME = { userId: 'U0BOT0001', teamId: 'T0TEAM001', name: 'agentbot' };
const base: SlackMessageEvent = {
  type: 'message',
  channel: 'C0CHAN001',
  user: 'U0OWNER01',
  text: 'hi',
  ts: '1700000000.000100',
};

describe('classify', () => {
  it.each([
    ['an edit', { subtype: 'message_changed' }, 'subtype_message_changed'],
    ['a deletion', { subtype: 'message_deleted' }, 'subtype_message_deleted'],
    ['a join', { subtype: 'channel_join' }, 'subtype_channel_join'],
    ['a bot', { subtype: 'bot_message', bot_id: 'B1' }, 'subtype_bot_message'],
    ['an app posting as a user', { bot_id: 'B1' }, 'from_a_bot'],
    ['our own message', { user: 'U0BOT0001' }, 'own_message'],
    ['no user', { user: undefined }, 'no_sender'],
    ['no ts', { ts: 'yesterday' }, 'malformed'],
    ['nothing in it', { text: '  ' }, 'no_content'],
    ['another event type', { type: 'reaction_added' }, 'not_a_message'],
  ])('ignores %s', (_n, over, reason) => {
    expect(classify({ ...base, ...over } as SlackMessageEvent, ME, false, 1e6)).toEqual({
      type: 'ignore',
      reason,
    });
  });

  it.each([
    ['a DM', { channel: 'D0DM00001' }, false, 'D0DM00001'],
    [
      'a DM thread, one session per DM',
      { channel: 'D0DM00001', thread_ts: '1699999999.000001' },
      false,
      'D0DM00001',
    ],
    [
      'a DM thread with thread sessions',
      { channel: 'D0DM00001', thread_ts: '1699999999.000001' },
      true,
      'D0DM00001:1699999999.000001',
    ],
    ['a top-level DM with thread sessions', { channel: 'D0DM00001' }, true, 'D0DM00001'],
    ['a channel message', {}, false, 'C0CHAN001'],
    ['a channel message with thread sessions starts a thread', {}, true, 'C0CHAN001:1700000000.000100'],
    [
      'a thread reply with thread sessions',
      { thread_ts: '1699999999.000001' },
      true,
      'C0CHAN001:1699999999.000001',
    ],
    [
      'a broadcast reply is still a message',
      { subtype: 'thread_broadcast', thread_ts: '1699999999.000001' },
      false,
      'C0CHAN001',
    ],
  ])('puts %s in its chat', (_n, over, threads, chatId) => {
    const c = classify({ ...base, ...over } as SlackMessageEvent, ME, threads, 1e6);
    expect(c.type === 'message' && c.msg.chatId).toBe(chatId);
  });

  it('keeps files under the cap and names the ones over it', () => {
    const c = classify(
      {
        ...base,
        subtype: 'file_share',
        files: [
          {
            name: 'a.png',
            mimetype: 'image/png',
            size: 10,
            url_private_download: 'https://files.slack.com/a',
          },
          {
            name: 'big.mov',
            mimetype: 'video/quicktime',
            size: 2e6,
            url_private_download: 'https://files.slack.com/b',
          },
          { name: 'gone', mode: 'tombstone' },
        ],
      },
      ME,
      false,
      1e6,
    );
    expect(c.type === 'message' && c.msg.files.map((f) => f.name)).toEqual(['a.png']);
    expect(c.type === 'message' && c.msg.tooLarge).toEqual(['big.mov']);
  });

  it.each([
    ['<@U0BOT0001> do it', 'do it'],
    ['<@U0BOT0001|agentbot>: do it', 'do it'],
    ['ask <@U0OTHER01|bob> and <#C0CHAN001|general>', 'ask @bob and #general'],
    ['<!here> look', '@here look'],
    ['<https://example.com|the site> and <https://x.y>', 'the site (https://example.com) and https://x.y'],
    ['a &lt; b &amp;&amp; c &gt; d', 'a < b && c > d'],
    ['&amp;lt; stays an ampersand', '&lt; stays an ampersand'],
  ])('plain text of %j', (raw, text) => {
    expect(plainText(raw, ME.userId)).toBe(text);
  });
});

describe('gate', () => {
  const cfg: GateConfig = {
    allowFrom: ['U0OWNER01'],
    channels: ['C0CHAN001'],
    channelAllowFrom: ['U0OWNER01', 'U0MEMBER1'],
    channelAlways: ['C0ALWAYS1'],
    mentionPatterns: [/^agent\b/i],
  };
  const msg = (over: Record<string, unknown>) => {
    const c = classify({ ...base, ...over } as SlackMessageEvent, ME, false, 1e6);
    if (c.type !== 'message') throw new Error(c.reason);
    return c.msg;
  };
  it.each([
    ['owner DM', { channel: 'D0DM00001' }, false, { type: 'run', trigger: 'direct' }],
    [
      'stranger DM',
      { channel: 'D0DM00001', user: 'U0STRANGE' },
      false,
      { type: 'drop', reason: 'not_allowed' },
    ],
    [
      'channel not listed',
      { channel: 'C0OTHER01', text: '<@U0BOT0001> hi' },
      false,
      { type: 'drop', reason: 'channel_not_allowed' },
    ],
    [
      'sender not allowed in channel',
      { user: 'U0STRANGE', text: '<@U0BOT0001> hi' },
      false,
      { type: 'skip', reason: 'sender_not_allowed' },
    ],
    ['no mention', {}, false, { type: 'skip', reason: 'not_addressed' }],
    ['mention', { text: '<@U0BOT0001> hi' }, false, { type: 'run', trigger: 'mention' }],
    ['thread the bot is in', { thread_ts: '1699999999.000001' }, true, { type: 'run', trigger: 'thread' }],
    [
      'thread the bot is not in',
      { thread_ts: '1699999999.000001' },
      false,
      { type: 'skip', reason: 'not_addressed' },
    ],
    ['a top-level message is not "in a thread"', {}, true, { type: 'skip', reason: 'not_addressed' }],
    ['pattern', { text: 'agent, status' }, false, { type: 'run', trigger: 'pattern' }],
    ['always channel', { channel: 'C0ALWAYS1' }, false, { type: 'drop', reason: 'channel_not_allowed' }],
    [
      'member in channel with mention',
      { user: 'U0MEMBER1', text: '<@U0BOT0001> hi' },
      false,
      { type: 'run', trigger: 'mention' },
    ],
  ])('%s', (_n, over, inThread, decision) => {
    expect(gate(msg(over), cfg, inThread)).toEqual(decision);
  });

  it('a channel in channelAlways runs every message, once it is allowed', () => {
    expect(gate(msg({ channel: 'C0ALWAYS1' }), { ...cfg, channels: ['C0ALWAYS1'] }, false)).toEqual({
      type: 'run',
      trigger: 'always',
    });
  });
});

describe('gateConfig: the roles of access fit the direct allow-list', () => {
  const access = (owners: string[], guests: string[] = []) =>
    configSchema.parse({ access: { owners, guests } }).access;
  const section = (s: Record<string, unknown>) => configSchema.parse({ slack: s }).slack;
  it.each([
    [
      'allowlist: allowFrom, owners and guests named for slack or every channel',
      { allowFrom: ['U0MEMBER1'] },
      ['slack:U0OWNER01', 'telegram:42'],
      ['U0GUEST01'],
      ['U0MEMBER1', 'U0OWNER01', 'U0GUEST01'],
    ],
    [
      "none: only owners (access.owners, and allowFrom's first entry, the channel's owner)",
      { dm: 'none', allowFrom: ['U0FIRST01', 'U0MEMBER1'] },
      ['slack:U0OWNER01'],
      [],
      ['U0FIRST01', 'U0OWNER01'],
    ],
    ['everyone', { dm: 'everyone' }, [], [], '*'],
  ])('%s', (_n, s, owners, guests, allow) => {
    const got = gateConfig(section(s), access(owners, guests)).allowFrom;
    if (allow === '*') expect(got).toBe('*');
    else expect([...got].sort()).toEqual([...(allow as string[])].sort());
  });
});
