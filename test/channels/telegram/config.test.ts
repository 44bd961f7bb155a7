import { describe, expect, it } from 'vitest';
import { checkChatKey } from '../../../src/channels/registry.js';
import { telegramPlugin } from '../../../src/channels/telegram/plugin.js';
import { resolveToken } from '../../../src/channels/telegram/settings.js';
import { redactConfig } from '../../../src/config/redact.js';
import { configSchema } from '../../../src/config/schema.js';
import { TOKEN } from './fake-bot-api.js';

describe('telegram config', () => {
  it('takes numeric user ids (numbers or strings) and "*"', () => {
    const c = configSchema.parse({ telegram: { allowFrom: [42, '1234567890'], groups: ['-1001234567890'] } });
    expect(c.telegram.allowFrom).toEqual(['42', '1234567890']);
    expect(configSchema.parse({ telegram: { allowFrom: '*' } }).telegram.allowFrom).toBe('*');
    expect(c.telegram.enabled).toBe(false);
  });

  it('refuses a @username in allowFrom with a hint that ids are numeric', () => {
    const r = configSchema.safeParse({ telegram: { allowFrom: ['@alice'] } });
    expect(r.success).toBe(false);
    const issue = r.error!.issues[0]!;
    expect(issue.path).toEqual(['telegram', 'allowFrom', 0]);
    expect(issue.message).toMatch(/numeric Telegram id.*usernames/);
  });

  it('refuses a webhook URL that is not https and a short secret', () => {
    expect(
      configSchema.safeParse({ telegram: { webhook: { url: 'http://bot.example.com/x' } } }).success,
    ).toBe(false);
    expect(
      configSchema.safeParse({
        telegram: { webhook: { url: 'https://b.example.com/x', secretToken: 'short' } },
      }).success,
    ).toBe(false);
  });

  it('the token comes from config, then $TELEGRAM_BOT_TOKEN; a malformed one is refused', () => {
    const tg = configSchema.parse({}).telegram;
    expect(resolveToken(tg, {})).toMatchObject({ ok: false, error: expect.stringMatching(/no bot token/) });
    expect(resolveToken(tg, { TELEGRAM_BOT_TOKEN: TOKEN })).toEqual({ ok: true, token: TOKEN });
    expect(resolveToken({ ...tg, botToken: 'nope' }, {})).toMatchObject({ ok: false });
  });

  it('redacts the token and webhook secret in config print', () => {
    const c = configSchema.parse({
      telegram: {
        botToken: TOKEN,
        webhook: { url: 'https://b.example.com/x', secretToken: 'a-secret-of-16-chars' },
      },
    });
    const printed = JSON.stringify(redactConfig(c));
    expect(printed).not.toContain(TOKEN);
    expect(printed).not.toContain('a-secret-of-16-chars');
  });

  it('plugin: chat ids are numeric, negative ones are groups', () => {
    expect(telegramPlugin.isChatId('123456789')).toBe(true);
    expect(telegramPlugin.isChatId('-1001234567890')).toBe(true);
    expect(telegramPlugin.isChatId('@alice')).toBe(false);
    expect(telegramPlugin.isChatId('+15551234567')).toBe(false);
    expect(telegramPlugin.chatKind('-100123')).toBe('group');
    expect(telegramPlugin.chatKind('42')).toBe('direct');
    expect(checkChatKey('telegram:@alice').ok).toBe(false);
    expect(checkChatKey('telegram:-1001234567890')).toMatchObject({ ok: true, channel: 'telegram' });
    expect(telegramPlugin.textRules(configSchema.parse({}))).toEqual({ limit: 4096, fences: true });
  });
});
