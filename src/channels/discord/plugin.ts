// The Discord channel as a plug-in. Light on purpose: @discordjs/* is loaded by `create` and `doctor`
// only, when Discord is enabled. A chat id is a channel or thread id (a snowflake) in a server, or
// `dm:<user id>` for a direct message: a person's id is what people know and what allowFrom lists,
// and the DM channel behind it is opened (and remembered) by the channel.
import type { ChannelPlugin } from '../plugin.js';
import { resolveToken } from './settings.js';

const SNOWFLAKE = /^\d{17,20}$/;

export const discordPlugin: ChannelPlugin = {
  name: 'discord',
  displayName: 'Discord',
  // PATCH and DELETE of the bot's own messages (a run's status line); no reactions or buttons yet.
  // A channel takes 5 messages or edits in 5 s, the answer included: a status line every 1.5 s leaves
  // the answer its place in the bucket.
  capabilities: { edit: true, editIntervalMs: 1500, delete: true },
  enabled: (config) => config.discord.enabled,
  async create(deps) {
    const [{ createDiscordChannel }, { makeTranscriber }] = await Promise.all([
      import('./channel.js'),
      import('../whatsapp/transcribe.js'),
    ]);
    const transcribe = makeTranscriber(deps.config.media.transcribe, deps.log, {
      ...(deps.launcher && { launcher: deps.launcher }),
    });
    return createDiscordChannel({
      config: deps.config,
      paths: deps.paths,
      log: deps.log,
      state: deps.state,
      env: deps.env,
      ...(transcribe ? { transcribe } : {}),
    });
  },
  isChatId: (chatId) => SNOWFLAKE.test(chatId.startsWith('dm:') ? chatId.slice(3) : chatId),
  chatKind: (chatId) => (chatId.startsWith('dm:') ? 'direct' : 'group'),
  exampleChatId: 'dm:123456789012345678',
  chatIdHelp:
    'dm:<user id> for a direct message, or a channel or thread id (17 to 20 digits; Developer Mode → Copy ID), never a name',
  textRules: () => ({ limit: 2000, fences: true }),
  configProblems(config, env) {
    const t = resolveToken(config.discord, env);
    if (t.ok) return [];
    const key = config.discord.tokenFile && !config.discord.botToken ? 'tokenFile' : 'botToken';
    return [{ path: ['discord', key], message: t.error }];
  },
  // The token file's contents are registered by the channel itself when it reads them.
  secrets: (c, env) => [c.discord.botToken, env.DISCORD_BOT_TOKEN],
  // The config's token field, and the Authorization header of a REST request (`Bot <token>`).
  logRedactPaths: ['botToken', '*.botToken', 'headers.authorization', 'headers.Authorization'],
  async doctor(deps) {
    const { discordDoctor } = await import('./doctor.js');
    return discordDoctor(deps);
  },
};
