// The Telegram channel as a plug-in. Light on purpose: grammY is loaded by `create` and `doctor`
// only, when Telegram is enabled. A chat id is the Bot API's numeric chat id: positive for a person,
// negative for a group or supergroup (`-100…`).
import type { ChannelPlugin } from '../plugin.js';
import { resolveToken } from './settings.js';

export const telegramPlugin: ChannelPlugin = {
  name: 'telegram',
  displayName: 'Telegram',
  // editMessageText, setMessageReaction (the Bot API's fixed set of reaction emoji only), deleteMessage
  // (a bot may delete its own messages in any chat, for 48 h), and cards
  // as an inline keyboard whose taps come back as callback queries (normalize.ts).
  // Edits count against about one message a second per chat (20 a minute in a group), shared with
  // the answer: a status line every 1.5 s leaves room, and a 429 is waited out by the outbox.
  capabilities: { edit: true, editIntervalMs: 1500, react: true, delete: true, buttons: true },
  enabled: (config) => config.telegram.enabled,
  async create(deps) {
    const [{ createTelegramChannel }, { makeTranscriber }] = await Promise.all([
      import('./channel.js'),
      import('../whatsapp/transcribe.js'),
    ]);
    const transcribe = makeTranscriber(deps.config.media.transcribe, deps.log, {
      ...(deps.launcher && { launcher: deps.launcher }),
    });
    return createTelegramChannel({
      config: deps.config,
      paths: deps.paths,
      log: deps.log,
      state: deps.state,
      env: deps.env,
      ...(transcribe ? { transcribe } : {}),
      ...(deps.single && { single: deps.single }),
    });
  },
  // One getUpdates consumer per bot (a second one gets 409 Conflict); a webhook takes requests on
  // every process. Sends go through the Bot API from any process.
  single: (c) => c.telegram.enabled && !c.telegram.webhook,
  isChatId: (chatId) => /^-?[1-9]\d{0,19}$/.test(chatId),
  chatKind: (chatId) => (chatId.startsWith('-') ? 'group' : 'direct'),
  exampleChatId: '123456789',
  chatIdHelp:
    'a numeric Telegram chat id like 123456789 (a person) or -1001234567890 (a group), never a @username',
  textRules: () => ({ limit: 4096, fences: true }),
  configProblems(config, env) {
    const t = resolveToken(config.telegram, env);
    if (t.ok) return [];
    const key = config.telegram.tokenFile && !config.telegram.botToken ? 'tokenFile' : 'botToken';
    return [{ path: ['telegram', key], message: t.error }];
  },
  // The token file's contents are registered by the channel itself when it reads them.
  secrets: (c, env) => [c.telegram.botToken, c.telegram.webhook?.secretToken, env.TELEGRAM_BOT_TOKEN],
  // The config's token fields, and the webhook's secret-token header (a forged request carries a
  // value no config holds, so only its path can mask it).
  logRedactPaths: [
    'botToken',
    'secretToken',
    '*.botToken',
    '*.secretToken',
    'headers["x-telegram-bot-api-secret-token"]',
  ],
  async doctor(deps) {
    const { telegramDoctor } = await import('./doctor.js');
    return telegramDoctor(deps);
  },
};
