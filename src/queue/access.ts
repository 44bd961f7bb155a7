// The config's roles and routes as the queue's ports (RoleResolver, RouteResolver), and the folders
// whose runs are confined to their own chat's folder. Built once by the composition root (relay.ts);
// the decisions themselves are pure (core/roles.ts, core/routes.ts).
import { agentIds, resolveAgentId } from '../agents/named.js';
import { CONSOLE, channelPlugin } from '../channels/registry.js';
import type { Paths } from '../config/paths.js';
import type { Config } from '../config/schema.js';
import { type DmPolicy, roleOf } from '../core/roles.js';
import { routeFor } from '../core/routes.js';
import { parseChatKey } from '../core/types.js';
import { ownerOf } from './owner.js';
import type { ChannelMap, RoleResolver, RouteResolver } from './ports.js';

export function routeResolver(config: Config): RouteResolver {
  const fallback = { agent: config.agent.kind, allowed: agentIds(config) };
  return (chat) => {
    const key = parseChatKey(chat);
    if (!key) return fallback;
    const plugin = channelPlugin(key.channel);
    // A chat id the channel does not know as a group (the console, a Twilio number) is direct.
    const isGroup = plugin?.isChatId(key.chatId) === true && plugin.chatKind(key.chatId) === 'group';
    return routeFor(config.routes, { channel: key.channel, chatId: key.chatId, isGroup }, fallback);
  };
}

type Section = { allowFrom?: '*' | readonly string[]; dm?: DmPolicy } | undefined;

export function roleResolver(config: Config, channels: ChannelMap): RoleResolver {
  const owner = ownerOf(config, channels);
  return ({ channel, senderId, isGroup }) => {
    // The person at the terminal (`agentwire chat`) is the owner by definition.
    if (channel === CONSOLE) return 'owner';
    // Each channel's config section is named for it (channels/plugin.ts), with its allowFrom and dm.
    const section = (config as unknown as Record<string, Section>)[channel];
    return roleOf({
      channel,
      senderId,
      owner: owner(channel),
      owners: config.access.owners,
      guests: config.access.guests,
      members: section?.allowFrom,
      dm: section?.dm ?? 'allowlist',
      isGroup,
    });
  };
}

/** The folders of per-chat agents: a run under one sends files only from its own chat's folder. */
export function confinedRoots(config: Config, paths: Paths): string[] {
  const out: string[] = [];
  for (const id of agentIds(config)) {
    try {
      const a = resolveAgentId(config, paths, id, { createDirs: false, env: {} });
      if (a.workspace === 'per-chat') out.push(a.cwd);
    } catch {
      // An agent that cannot resolve never runs, so it sends nothing either.
    }
  }
  return out;
}
