// Where a heartbeat or schedule may speak. Only a configured chat key (or a channel's default chat,
// such as the linked WhatsApp self-chat), never "whoever wrote last": openclaw#24638 sent a system
// status dump to an outside contact that way. Heartbeats never go to a group; nothing goes to a
// broadcast list, status feed or channel, where a post would reach everyone who follows it. Which
// chat ids are groups or broadcasts is the channel's knowledge: its plugin says (chatKind).
import type { ChannelPlugin } from '../channels/plugin.js';
import { CHANNELS, checkChatKey } from '../channels/registry.js';
import type { Config } from '../config/schema.js';
import { type ChatKey, chatKey } from '../core/types.js';
import type { StatusFacts } from '../store/status-read.js';

export type TargetCheck = { ok: true; chat: ChatKey } | { ok: false; reason: TargetProblem; message: string };
export type TargetProblem = 'none' | 'invalid' | 'group' | 'broadcast';

/** A chat key a schedule may use: a known channel, a chat id it accepts, not a broadcast. Groups are allowed. */
export function checkScheduleTarget(
  raw: string | undefined,
  plugins: readonly ChannelPlugin[] = CHANNELS,
): TargetCheck {
  if (raw === undefined || raw.trim() === '') return { ok: false, reason: 'none', message: 'no target chat' };
  const c = checkChatKey(raw, plugins);
  if (!c.ok) return { ok: false, reason: 'invalid', message: c.error };
  if (c.plugin?.chatKind(c.chatId) === 'broadcast')
    return { ok: false, reason: 'broadcast', message: 'a broadcast list, status or channel is not a chat' };
  return { ok: true, chat: chatKey(c.channel, c.chatId) };
}

/** A chat key a heartbeat may use: as for schedules, and never a group. */
export function checkHeartbeatTarget(
  raw: string | undefined,
  plugins: readonly ChannelPlugin[] = CHANNELS,
): TargetCheck {
  const c = checkScheduleTarget(raw, plugins);
  if (!c.ok) return c;
  const p = checkChatKey(c.chat, plugins);
  if (p.ok && p.plugin?.chatKind(p.chatId) === 'group')
    return { ok: false, reason: 'group', message: 'a heartbeat is never sent to a group' };
  return c;
}

/**
 * True when an enabled channel may have a default check-in chat (WhatsApp: the linked self-chat).
 * A config given in part (tests, listings built from a few sections) leaves a channel's section out:
 * that channel is then assumed enabled, as the heartbeat always assumed of WhatsApp.
 */
export function hasDefaultTarget(config: object, plugins: readonly ChannelPlugin[] = CHANNELS): boolean {
  return plugins.some((p) => p.defaultTarget && enabledOrAssumed(p, config));
}

function enabledOrAssumed(p: ChannelPlugin, config: object): boolean {
  try {
    return p.enabled(config as Config);
  } catch {
    return true; // the channel's section is missing from a partial config
  }
}

/**
 * The first enabled channel's default check-in chat, as a chat key, from what the store held when it
 * was read (`facts`; never the network). Undefined when none has one, or there is no store.
 */
export function storedDefaultTarget(
  config: Config,
  facts: StatusFacts | undefined,
  plugins: readonly ChannelPlugin[] = CHANNELS,
): ChatKey | undefined {
  if (!facts) return undefined;
  for (const p of plugins) {
    if (!p.defaultTarget || !p.enabled(config)) continue;
    const id = p.defaultTarget({ config, facts });
    if (id) return chatKey(p.name, id);
  }
  return undefined;
}

/**
 * The config's targets checked against the channels (the schema, in the base layer, checks only
 * their form): handed to loadConfig, so a bad target is refused at load naming its key.
 */
export function configTargetProblems(
  config: Config,
  plugins: readonly ChannelPlugin[] = CHANNELS,
): { path: (string | number)[]; message: string }[] {
  const out: { path: (string | number)[]; message: string }[] = [];
  const h = config.heartbeat;
  if (h.target !== undefined) {
    const t = checkHeartbeatTarget(h.target, plugins);
    if (!t.ok) out.push({ path: ['heartbeat', 'target'], message: t.message });
  } else if (h.everyMinutes && !hasDefaultTarget(config, plugins)) {
    // An explicit interval with no chat to tick at (the default interval simply leaves it off).
    out.push({ path: ['heartbeat', 'target'], message: noTargetMessage(plugins) });
  }
  config.schedules.forEach((s, i) => {
    const t = checkScheduleTarget(s.target, plugins);
    if (!t.ok) out.push({ path: ['schedules', i, 'target'], message: t.message });
  });
  // Named chats and the chats hooks wake (docs/events.md): a hook may name a target instead.
  for (const [name, key] of Object.entries(config.targets ?? {})) {
    const t = checkScheduleTarget(key, plugins);
    if (!t.ok) out.push({ path: ['targets', name], message: t.message });
  }
  for (const [name, hook] of Object.entries(config.hooks ?? {})) {
    if (config.targets?.[hook.chat] !== undefined) continue;
    const t = checkScheduleTarget(hook.chat, plugins);
    if (!t.ok) out.push({ path: ['hooks', name, 'chat'], message: `${t.message} (nor a name in targets)` });
  }
  return out;
}

/**
 * Everything loadConfig must check beyond the schema that needs the channel plug-ins: the targets
 * above, and what keeps an enabled channel from starting (plugin.configProblems).
 */
export function configProblems(
  config: Config,
  env: NodeJS.ProcessEnv,
  plugins: readonly ChannelPlugin[] = CHANNELS,
): { path: (string | number)[]; message: string }[] {
  const out = configTargetProblems(config, plugins);
  for (const p of plugins) if (p.enabled(config)) out.push(...(p.configProblems?.(config, env) ?? []));
  return out;
}

export function noTargetMessage(plugins: readonly ChannelPlugin[] = CHANNELS): string {
  const first = plugins[0];
  const example = first ? ` (e.g. "${first.name}:${first.exampleChatId}")` : '';
  const defaults = plugins.filter((p) => p.defaultTarget).map((p) => p.displayName);
  const orEnable = defaults.length ? `, or enable ${defaults.join(' or ')} to use its default chat` : '';
  return `heartbeat.everyMinutes is set but there is no chat to check in with: set heartbeat.target${example}${orEnable}`;
}
