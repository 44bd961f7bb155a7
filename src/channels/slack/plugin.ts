// The Slack channel as a plug-in. Light on purpose: the Slack libraries are loaded by `create` and
// `doctor` only, when Slack is enabled. A chat id is a conversation id (`D…` a direct message, `C…`
// or `G…` a channel or group DM), or with slack.threadSessions one thread of it (`C…:<thread ts>`).
import type { ChannelPlugin } from '../plugin.js';
import { isDirect, isSlackChatId } from './ids.js';
import { resolveSecrets, secretProblems } from './settings.js';

export const slackPlugin: ChannelPlugin = {
  name: 'slack',
  displayName: 'Slack',
  // chat.update and chat.delete on the bot's own messages (a run's status line); no reactions or
  // buttons yet.
  // chat.update is Tier 3 (about 50 a minute): a status line every 1.5 s stays under it.
  capabilities: { edit: true, editIntervalMs: 1500, delete: true },
  enabled: (config) => config.slack.enabled,
  async create(deps) {
    const { createSlackChannel } = await import('./channel.js');
    return createSlackChannel({
      config: deps.config,
      paths: deps.paths,
      log: deps.log,
      state: deps.state,
      env: deps.env,
    });
  },
  isChatId: isSlackChatId,
  chatKind: (chatId) => (isDirect(chatId) ? 'direct' : 'group'),
  exampleChatId: 'D0123ABCD',
  chatIdHelp:
    'a Slack conversation id like D0123ABCD (a direct message) or C0123ABCD (a channel), optionally :<thread ts>; never a #name',
  textRules: () => ({ limit: 4000, fences: true }),
  configProblems(config, env) {
    if (!config.slack.enabled) return [];
    return secretProblems(config.slack, resolveSecrets(config.slack, env)).map((p) => ({
      path: ['slack', p.key],
      message: p.message,
    }));
  },
  secrets: (c, env) => [
    c.slack.botToken,
    c.slack.appToken,
    c.slack.signingSecret,
    env.SLACK_BOT_TOKEN,
    env.SLACK_APP_TOKEN,
    env.SLACK_SIGNING_SECRET,
  ],
  // The config's secret fields, and the signature header of a request (a forged one carries a value
  // no config holds, so only its path can mask it).
  logRedactPaths: [
    'appToken',
    'signingSecret',
    '*.appToken',
    '*.signingSecret',
    'headers["x-slack-signature"]',
  ],
  async doctor(deps) {
    const { slackDoctor } = await import('./doctor.js');
    return slackDoctor(deps);
  },
};
