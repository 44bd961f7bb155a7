// The discord config section (strict, ids only) and the plug-in's pure answers.
import { describe, expect, it } from 'vitest';
import { discordPlugin } from '../../../src/channels/discord/plugin.js';
import { gateConfig, resolveToken } from '../../../src/channels/discord/settings.js';
import { configSchema } from '../../../src/config/schema.js';
import { TOKEN } from './fake-discord.js';

const parse = (discord: Record<string, unknown>) => configSchema.safeParse({ discord });

describe('discord config', () => {
  it('is off by default, and takes ids as numbers or strings', () => {
    expect(configSchema.parse({}).discord).toMatchObject({
      enabled: false,
      allowFrom: [],
      guilds: [],
      threadSessions: false,
      slashCommands: false,
    });
    const r = parse({ enabled: true, allowFrom: ['222222222222222222'], guilds: '*' });
    expect(r.success && r.data.discord.allowFrom).toEqual(['222222222222222222']);
  });

  it.each([
    ['a username as an identity', { allowFrom: ['alice'] }, /Discord id/],
    ['an unknown key', { alowFrom: [] }, /alowFrom|Unrecognized/],
    ['an http API root off loopback', { apiRoot: 'http://discord.example/api' }, /https/],
    ['a bad mention pattern', { mentionPatterns: ['('] }, /regular expression/],
  ])('refuses %s with a clear error', (_name, section, message) => {
    const r = parse(section);
    expect(r.success).toBe(false);
    expect(JSON.stringify(r.error?.issues)).toMatch(message);
  });

  it('a missing or malformed token is a config problem at its key', () => {
    const config = configSchema.parse({ discord: { enabled: true } });
    expect(discordPlugin.configProblems?.(config, {})).toEqual([
      { path: ['discord', 'botToken'], message: expect.stringMatching(/no bot token/) },
    ]);
    expect(resolveToken(config.discord, { DISCORD_BOT_TOKEN: 'not-a-token' })).toMatchObject({ ok: false });
    expect(resolveToken(config.discord, { DISCORD_BOT_TOKEN: `Bot ${TOKEN}` })).toEqual({
      ok: true,
      token: TOKEN,
    });
    expect(discordPlugin.secrets?.(config, { DISCORD_BOT_TOKEN: TOKEN })).toContain(TOKEN);
  });
});

describe('discord chat ids', () => {
  it.each([
    ['dm:222222222222222222', true, 'direct'],
    ['555555555555555555', true, 'group'],
    ['dm:alice', false, undefined],
    ['#general', false, undefined],
    ['123', false, undefined],
  ])('%s', (id, ok, kind) => {
    expect(discordPlugin.isChatId(id)).toBe(ok);
    if (kind) expect(discordPlugin.chatKind(id)).toBe(kind);
  });

  it('replies are cut at 2,000 characters, fences re-opened', () => {
    expect(discordPlugin.textRules(configSchema.parse({}))).toEqual({ limit: 2000, fences: true });
  });
});

describe('discord and the relay roles', () => {
  const ME = '222222222222222222';
  const OWNER = '333333333333333333';
  const GUEST = '444444444444444444';
  const access = (o: object) => configSchema.parse({ access: o }).access;
  it.each([
    [
      'allowlist: allowFrom plus owners and guests named for discord',
      'allowlist',
      { owners: [`discord:${OWNER}`], guests: [GUEST] },
      [ME, OWNER, GUEST],
    ],
    [
      'allowlist: an owner named for another channel is not let in here',
      'allowlist',
      { owners: [`telegram:${OWNER}`] },
      [ME],
    ],
    [
      'none: only the owner (first allowFrom) and discord owners',
      'none',
      { owners: [`discord:${OWNER}`], guests: [GUEST] },
      [ME, OWNER],
    ],
    ['everyone', 'everyone', {}, '*'],
  ])('%s', (_name, dm, acc, expected) => {
    const cfg = configSchema.parse({ discord: { allowFrom: [ME], dm } }).discord;
    expect(gateConfig(cfg, access(acc)).allowFrom).toEqual(expected);
  });
});
