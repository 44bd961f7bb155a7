// The channels agentwire knows: one line each. Adding a channel is its folder (with a plugin.ts, see
// ./plugin.ts) and its line here; nothing else outside the folder names it (test/channels/registry
// tests both). The plugin modules are light; each loads its library only in `create`, when enabled.
import type { Config } from '../config/schema.js';
import { type ChannelName, type ChatKey, parseChatKey } from '../core/types.js';
import { discordPlugin } from './discord/plugin.js';
import { type ChannelCapabilities, type ChannelPlugin, PLUGIN_NAME } from './plugin.js';
import { slackPlugin } from './slack/plugin.js';
import { telegramPlugin } from './telegram/plugin.js';
import { twilioPlugin } from './twilio/plugin.js';
import { whatsappPlugin } from './whatsapp/plugin.js';

export const CHANNELS: readonly ChannelPlugin[] = [
  whatsappPlugin,
  twilioPlugin,
  telegramPlugin,
  slackPlugin,
  discordPlugin,
];

/** The terminal chat (`agentwire chat`): a channel without a plugin, never started by the relay. */
export const CONSOLE = 'console';

for (const p of CHANNELS)
  if (!PLUGIN_NAME.test(p.name) || p.name === CONSOLE) throw new Error(`bad channel plugin name "${p.name}"`);

export const channelPlugin = (name: string): ChannelPlugin | undefined =>
  CHANNELS.find((p) => p.name === name);

export const enabledChannels = (config: Config): ChannelPlugin[] => CHANNELS.filter((p) => p.enabled(config));

/** Every channel's secret values under this config and environment (to keep out of logs and files). */
export const channelSecrets = (config: Config, env: NodeJS.ProcessEnv): string[] =>
  CHANNELS.flatMap((p) => p.secrets?.(config, env) ?? []).filter((s): s is string => Boolean(s));

/** Every channel's log redaction paths (plugin.logRedactPaths), once each: handed to the logger. */
export const channelRedactPaths = (plugins: readonly ChannelPlugin[] = CHANNELS): string[] => [
  ...new Set(plugins.flatMap((p) => p.logRedactPaths ?? [])),
];

/** "whatsapp, twilio or console": for messages that list what a chat key may start with. */
export function channelNames(withConsole = true, each: (name: string) => string = (n) => n): string {
  const names = [...CHANNELS.map((p) => p.name), ...(withConsole ? [CONSOLE] : [])].map(each);
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}

export type ChatKeyCheck =
  | { ok: true; channel: ChannelName; chatId: string; key: ChatKey; plugin?: ChannelPlugin }
  | { ok: false; error: string };

/**
 * A chat key typed by a person (a config target, `send --to`, the control socket): a known channel
 * and a chat id that channel accepts. The console takes any chat id.
 */
export function checkChatKey(raw: string, plugins: readonly ChannelPlugin[] = CHANNELS): ChatKeyCheck {
  const p = parseChatKey(raw.trim());
  const example = plugins[0] ? `${plugins[0].name}:${plugins[0].exampleChatId}` : 'console:me';
  const known = [...plugins.map((x) => x.name), CONSOLE].join(', ');
  if (!p) return { ok: false, error: `"${raw}" is not a chat key like "${example}" (channel ${known})` };
  if (p.channel === CONSOLE) return { ok: true, ...p, key: `${p.channel}:${p.chatId}` };
  const plugin = plugins.find((x) => x.name === p.channel);
  if (!plugin) return { ok: false, error: `"${p.channel}" is not a channel (channels: ${known})` };
  if (!plugin.isChatId(p.chatId))
    return {
      ok: false,
      error: `"${p.chatId}" is not a ${plugin.displayName} chat id (${plugin.chatIdHelp ?? `like "${plugin.exampleChatId}"`})`,
    };
  return { ok: true, ...p, key: `${p.channel}:${p.chatId}`, plugin };
}

/** What a channel can do besides sending (plugin.capabilities), every field set; none for the console. */
export function channelCapabilities(name: string): Required<ChannelCapabilities> {
  const c = channelPlugin(name)?.capabilities;
  return {
    edit: c?.edit === true,
    editIntervalMs: c?.editIntervalMs ?? 1000,
    react: c?.react === true,
    delete: c?.delete === true,
    buttons: c?.buttons === true,
  };
}
