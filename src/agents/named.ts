// Named agents (`agents.list`) on top of the per-kind settings: an agent id is a name from the list
// or, as before named agents existed, a CLI kind. A named agent is resolved like `agents.<kind>`
// with its own folder (`<state>/workspaces/<name>` unless it says), its own state folder (so pi's
// session files and the tool-run files of two agents of one kind never mix), and none of
// `agent`'s per-kind choices (model, mode, command…) unless it is that kind's own entry: only the
// shared `agent.env`, `agent.timeoutSeconds` and `agent.systemText` carry over.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Paths } from '../config/paths.js';
import type { Config } from '../config/schema.js';
import { folderOf } from '../config/schema-agents-list.js';
import type { Sandbox } from '../core/sandbox.js';
import { chatFolderName } from '../core/workspace.js';
import { type AgentPlace, type AgentSettings, configuredKinds, resolveAgent } from './resolve.js';
import type { AgentKind } from './types.js';

/** Settings with the agent id (a list name, or the kind itself for the older configs). */
export type NamedSettings = AgentSettings & { id: string };

export function namedAgent(config: Config, id: string): Config['agents']['list'][number] | undefined {
  return config.agents.list.find((a) => a.name === id);
}

/** Every agent a chat could use: each named agent, then each configured kind. */
export function agentIds(config: Config): string[] {
  return [...config.agents.list.map((a) => a.name), ...configuredKinds(config)];
}

export function resolveAgentId(
  config: Config,
  paths: Paths,
  id: string,
  opts: { env?: NodeJS.ProcessEnv; createDirs?: boolean } = {},
): NamedSettings {
  const entry = namedAgent(config, id);
  if (!entry) return { ...resolveAgent(config, paths, id as AgentKind, opts), id };
  const { name, kind, talksTo: _tt, ownerChat: _oc, ...over } = entry;
  const {
    kind: _k,
    command: _c,
    model: _m,
    thinking: _t,
    mode: _mo,
    permissions: _p,
    ...shared
  } = config.agent;
  const { workspace: _w, cliHome: _h, profiles: _pr, cwd: _cwd, ...common } = shared;
  const cwd = folderOf(over) ?? join(paths.home, 'workspaces', name);
  const own: Config = {
    ...config,
    agent: { ...common, kind },
    agents: { ...config.agents, [kind]: { ...over, cwd } },
  };
  const settings = resolveAgent(own, { ...paths, agentState: join(paths.agentState, 'named') }, kind, {
    ...opts,
    createDirs: false,
  });
  const stateDir = join(paths.agentState, 'named', name);
  const homeEnv = settings.cliHome === 'agent' ? kindHome(settings, join(stateDir, 'home')) : {};
  const out: NamedSettings = { ...settings, id: name, stateDir, env: { ...settings.env, ...homeEnv } };
  if (opts.createDirs !== false) {
    mkdirSync(out.cwd, { recursive: true, mode: 0o700 });
    mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    if (settings.cliHome === 'agent') mkdirSync(join(stateDir, 'home'), { recursive: true, mode: 0o700 });
  }
  // The kind's sandbox was planned for the kind's folders: plan it again for this agent's own.
  if (!settings.sandboxAt) return out;
  const boxed = settings.sandboxAt({ cwd: out.cwd, env: out.env, stateDir }, opts.createDirs !== false);
  return { ...out, env: boxed.env, sandbox: boxed.sandbox };
}

function kindHome(s: AgentSettings, dir: string): Record<string, string> {
  return s.spec.homeEnv?.(dir) ?? {};
}

/**
 * Where one chat's run of `agent` happens: its folder (per-chat: `<cwd>/<chat>`, created on first
 * use, private) and its environment (cliHome `chat`: the CLI's own state folder of that chat).
 */
export function placeFor(
  agent: Pick<AgentSettings, 'cwd' | 'env' | 'stateDir' | 'workspace' | 'cliHome' | 'spec' | 'sandboxAt'>,
  chat: string,
): AgentPlace & { sandbox?: Sandbox } {
  if (agent.workspace !== 'per-chat') return { cwd: agent.cwd, env: agent.env, stateDir: agent.stateDir };
  const folder = chatFolderName(chat);
  const cwd = join(agent.cwd, folder);
  // 0700: another local user never reads a chat's files; the sandbox (where on) hides the siblings.
  mkdirSync(cwd, { recursive: true, mode: 0o700 });
  // The chat's own agentwire state (pi's session files, the tool files of its runs, its CLI home):
  // a sandboxed run binds its state folder read-write, so a shared one would show every chat's.
  const stateDir = join(agent.stateDir, 'chats', folder);
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  let env = agent.env;
  if (agent.cliHome === 'chat' && agent.spec.homeEnv) {
    const home = join(stateDir, 'home');
    mkdirSync(home, { recursive: true, mode: 0o700 });
    env = { ...agent.env, ...agent.spec.homeEnv(home) };
  }
  if (!agent.sandboxAt) return { cwd, env, stateDir };
  const boxed = agent.sandboxAt({ cwd, env, stateDir }, true);
  return { cwd, env: boxed.env, stateDir, sandbox: boxed.sandbox };
}
