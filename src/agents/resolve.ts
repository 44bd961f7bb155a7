// The effective settings of one agent kind: `agents.<kind>` over `agent` over the kind's defaults,
// plus the explicit environment it runs with. Shared by `agentwire agent …`, the relay and the
// heartbeat, so every caller runs the CLI the same way.
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { Paths } from '../config/paths.js';
import { agentKindSettings, type Config } from '../config/schema.js';
import { folderOf } from '../config/schema-agents-list.js';
import type { Sandbox } from '../core/sandbox.js';
import type { ChatKey } from '../core/types.js';
import {
  COMPILE_CACHE_ENV,
  compileCacheDir,
  compileCacheEnv,
  makeCompileCacheDir,
} from '../runner/compile-cache.js';
import { safeArg } from './common.js';
import { getSpec } from './registry.js';
import { makeSandbox } from './sandbox-plan.js';
import type {
  AgentKind,
  AgentRequest,
  AgentResult,
  AgentSpec,
  PermissionPolicy,
  SessionRef,
} from './types.js';

/** The effective settings of one agent kind (what `resolveAgent` works out from config). */
export interface AgentSettings {
  kind: AgentKind;
  spec: AgentSpec;
  command: string[];
  cwd: string;
  timeoutMs: number;
  env: Record<string, string>;
  model?: string;
  thinking?: string;
  systemText?: string;
  /** Per-kind private state (e.g. pi's session files): `<state>/agents/<kind>`. */
  stateDir: string;
  /** `warm`: one live process per chat (src/drivers/pool.ts); `cold`: one process per message. */
  mode: AgentMode;
  /** How the warm process's permission questions are answered (`agent.permissions`; default deny). */
  permissions: PermissionPolicy;
  /** `agent.sandbox: bwrap`: the plan, or why it cannot be made (then the agent does not run). */
  sandbox?: Sandbox;
  /** With a sandbox: the plan for another place of this agent (a named agent's, a chat's own). */
  sandboxAt?: SandboxAt;
  /** Settings that were ignored, for a start-up warning. */
  warnings: string[];
  /** `per-chat`: each chat runs in its own folder under `cwd` (agents/named.ts `placeFor`). */
  workspace: 'shared' | 'per-chat';
  /** Where the CLI keeps its own state: the user's (`global`), the agent's, or each chat's. */
  cliHome: 'global' | 'agent' | 'chat';
  /** Member and guest runs' permissions (`profiles`); an owner's use `permissions`. */
  profiles: { member?: Profile; guest?: Profile };
}

/**
 * Where a run belongs: its session key (the session scope: a chat, or `*`; one warm process a
 * key) and whose session it uses (a heartbeat's `own` or `fresh` session is not the chat's). The
 * agent layer decides from it whether the run goes to the chat's warm process or runs cold.
 */
export interface RunContext {
  sessionKey: string;
  session: 'chat' | 'own' | 'fresh';
}

/** Runs one agent request to completion (cold: runCommandReply bound to a spec; warm: the pool). */
export type AgentRun = (request: AgentRequest, ctx?: RunContext) => Promise<AgentResult>;

/**
 * One agent kind ready to run: what is fixed by config, plus how to run it. The queue runs every
 * turn through `run` (queue/adapters.ts builds it), so the agent layer may route it (a warm pool).
 */
export interface ResolvedAgent {
  kind: AgentKind;
  choosesSessionId: AgentSpec['choosesSessionId'];
  thinkingLevels: readonly string[];
  /** True when a stored session is known to be gone before running (pi's session file). */
  sessionGone?: (id: string) => boolean;
  /** Request fields that do not change between runs: command, cwd, env, timeoutMs, model… */
  base: Omit<AgentRequest, 'prompt' | 'session' | 'signal' | 'onProgress' | 'onEvent'>;
  run: AgentRun;
  /** `warm` when its chat runs go to the warm pool (shown by /status). */
  mode?: 'warm' | 'cold';
  /**
   * A chat's own folder, environment and state folder (`workspace: 'per-chat'`), with its own
   * sandbox plan when sandboxed; absent: `base` for every chat.
   */
  place?: (chat: string) => AgentPlace & { sandbox?: Sandbox };
  /** One chat's received-files folder, made when missing: a sandboxed run of that chat sees it. */
  chatMedia?: (chat: ChatKey) => string;
  /** Member and guest runs' permissions; absent: `deny` for them. */
  profiles?: AgentSettings['profiles'];
}

export type AgentMode = 'warm' | 'cold';

/** A member's or guest's runs (`profiles`): their permissions and whether they run read-only. */
export interface Profile {
  permissions?: PermissionPolicy;
  readOnly?: boolean;
  /** The CLI's own network tools (web fetch, web search) where that can be said; default off. */
  networkTools?: boolean;
}

/** Always passed through when set: what any program needs to find itself, its home and its locale. */
export const BASE_ENV: readonly string[] = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'TZ',
  'TMPDIR',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'XDG_STATE_HOME',
  'XDG_CACHE_HOME',
  'XDG_RUNTIME_DIR',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'NODE_EXTRA_CA_CERTS',
];

/**
 * The explicit environment of an agent run: the base names and the spec's own names taken from
 * `from` when set, then the config's `env`. Nothing else of the relay's environment is inherited,
 * so another tool's credentials never reach the agent by accident.
 */
export function buildAgentEnv(
  spec: Pick<AgentSpec, 'passEnv'>,
  configEnv: Record<string, string>,
  from: NodeJS.ProcessEnv,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of [...BASE_ENV, ...spec.passEnv]) {
    const v = from[name];
    if (v !== undefined && v !== '') env[name] = v;
  }
  env.PATH ??= '/usr/local/bin:/usr/bin:/bin';
  // Colour codes only get in the way of parsing stderr.
  env.NO_COLOR = '1';
  return { ...env, ...configEnv };
}

export function resolveAgent(
  config: Config,
  paths: Paths,
  kind?: AgentKind,
  opts: { env?: NodeJS.ProcessEnv; createDirs?: boolean } = {},
): AgentSettings {
  const k = kind ?? (config.agent.kind as AgentKind);
  const spec = getSpec(k);
  const own = k === config.agent.kind ? config.agent : undefined;
  const over = config.agents[k];
  const warnings: string[] = [];
  const base = dirname(paths.configFile);
  const cwdSetting = folderOf(over ?? {}) ?? folderOf(config.agent);
  const cwd = cwdSetting
    ? isAbsolute(cwdSetting)
      ? cwdSetting
      : resolve(base, cwdSetting)
    : paths.workspace;
  const stateDir = join(paths.agentState, k);

  const model = over?.model ?? own?.model;
  let thinking = over?.thinking ?? own?.thinking;
  if (thinking !== undefined && !spec.thinkingLevels.includes(thinking)) {
    warnings.push(
      spec.thinkingLevels.length
        ? `${k}: thinking level "${thinking}" is not one of ${spec.thinkingLevels.join(', ')}; ignored`
        : `${k} has no thinking levels; "${thinking}" ignored`,
    );
    thinking = undefined;
  }
  if (model !== undefined) safeArg(model, `${k} model`);
  const systemText = over?.systemText ?? config.agent.systemText;
  // Warm by default: every CLI's warm driver passes its real-CLI suite (docs/warm-agents.md). An
  // ACP agent has no cold mode (the config check refuses `cold` for it).
  const mode: AgentMode = spec.warmOnly ? 'warm' : (over?.mode ?? own?.mode ?? 'warm');
  const from = opts.env ?? process.env;
  const cache = compileCacheDir(paths.home);

  // Where the folder is and how chats share it carry over from `agent` as cwd does: a chat that
  // switches kind with /agent stays in its own folder.
  const workspace = (over?.workspace ?? config.agent.workspace) === 'per-chat' ? 'per-chat' : 'shared';
  const cliHome = over?.cliHome ?? config.agent.cliHome ?? 'global';
  const homeEnv = cliHome === 'agent' && spec.homeEnv ? spec.homeEnv(join(stateDir, 'home')) : undefined;
  if (cliHome !== 'global' && !spec.homeEnv)
    warnings.push(`${k} has no setting for its own state folder; cliHome "${cliHome}" ignored`);
  if (opts.createDirs !== false) {
    // Private: the workspace and session files hold the conversation.
    mkdirSync(cwd, { recursive: true, mode: 0o700 });
    mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    makeCompileCacheDir(cache);
    if (homeEnv) mkdirSync(join(stateDir, 'home'), { recursive: true, mode: 0o700 });
  }
  const command = [...(over?.command ?? own?.command ?? [spec.program])];
  // The Node compile cache first, so a config `env` may point it elsewhere (runner/compile-cache.ts).
  const baseEnv = {
    ...buildAgentEnv(
      spec,
      { ...compileCacheEnv(cache, from), ...config.agent.env, ...(over?.env ?? {}) },
      from,
    ),
    ...homeEnv,
  };
  // As cwd: `agents.<kind>` over `agent` for every kind, so one `agent.sandbox` covers them all.
  const sandboxAt: SandboxAt | undefined =
    (over?.sandbox ?? config.agent.sandbox) === 'bwrap'
      ? (place, createDirs) => sandboxOf(k, { ...place, command, paths, createDirs })
      : undefined;
  const boxed = sandboxAt?.({ cwd, env: baseEnv, stateDir }, opts.createDirs !== false);
  const env = boxed?.env ?? baseEnv;
  const sandbox = boxed?.sandbox;
  return {
    kind: k,
    spec,
    command,
    cwd,
    timeoutMs: (over?.timeoutSeconds ?? config.agent.timeoutSeconds) * 1000,
    env,
    ...(model !== undefined ? { model } : {}),
    ...(thinking !== undefined ? { thinking } : {}),
    ...(systemText !== undefined ? { systemText } : {}),
    stateDir,
    mode,
    // As mode: `agents.<kind>` over `agent` for the agent's own kind. The config check refuses
    // `ask` with `cold`, so `ask` here always means a warm process.
    permissions: over?.permissions ?? own?.permissions ?? 'deny',
    ...(sandbox ? { sandbox } : {}),
    ...(sandboxAt ? { sandboxAt } : {}),
    warnings,
    workspace,
    cliHome,
    profiles: over?.profiles ?? config.agent.profiles ?? {},
  };
}

/** Where one run of an agent happens: its folder, its environment and agentwire's state for it. */
export interface AgentPlace {
  cwd: string;
  env: Record<string, string>;
  stateDir: string;
}

/** The sandbox for one place, and the environment the run takes into it. */
export type SandboxAt = (
  place: AgentPlace,
  createDirs: boolean,
) => { sandbox: Sandbox; env: Record<string, string> };

function sandboxOf(
  kind: AgentKind,
  o: AgentPlace & { command: string[]; paths: Paths; createDirs: boolean },
): { sandbox: Sandbox; env: Record<string, string> } {
  // A sandboxed run's Node compile cache is its own, in its state folder: one cache written by two
  // sandboxes would let one agent plant compiled code that another agent's CLI loads.
  const env = o.env[COMPILE_CACHE_ENV]
    ? { ...o.env, [COMPILE_CACHE_ENV]: join(o.stateDir, 'node-compile') }
    : o.env;
  if (o.createDirs && env[COMPILE_CACHE_ENV]) makeCompileCacheDir(env[COMPILE_CACHE_ENV]);
  const made = makeSandbox(kind, {
    cwd: o.cwd,
    env,
    stateDir: o.stateDir,
    command: o.command,
    // The relay's own files: never in the sandbox, nor any folder that holds them (the store's files
    // are in the state folder).
    hidden: [o.paths.home, o.paths.configFile, o.paths.socket],
    createDirs: o.createDirs,
  });
  return {
    sandbox: made.ok ? { type: 'bwrap', plan: made.plan } : { type: 'unavailable', error: made.error },
    env,
  };
}

/** The kinds the config may run: the default agent and every kind with its own settings. */
export function configuredKinds(config: Pick<Config, 'agent' | 'agents'>): AgentKind[] {
  const kinds = new Set<AgentKind>([config.agent.kind]);
  for (const [k, v] of agentKindSettings(config.agents)) if (v) kinds.add(k);
  return [...kinds];
}

/**
 * A new session reference: the relay picks a UUID where the CLI accepts one (claude, gemini); pi's
 * session file and the CLIs that choose their own id come back as the result's `sessionId`.
 */
export function newSession(agent: Pick<AgentSpec, 'choosesSessionId'>): SessionRef {
  return agent.choosesSessionId === 'relay-uuid' ? { type: 'new', id: randomUUID() } : { type: 'new' };
}

/** Everything runCommandReply needs, from resolved settings. */
export function agentRequest(
  agent: AgentSettings,
  prompt: string,
  session: SessionRef,
  extra: Pick<AgentRequest, 'signal' | 'onProgress' | 'onEvent' | 'maxStdoutBytes' | 'maxStderrBytes'> = {},
): AgentRequest {
  return {
    prompt,
    session,
    command: agent.command,
    cwd: agent.cwd,
    stateDir: agent.stateDir,
    timeoutMs: agent.timeoutMs,
    env: agent.env,
    ...(agent.model !== undefined ? { model: agent.model } : {}),
    ...(agent.thinking !== undefined ? { thinking: agent.thinking } : {}),
    ...(agent.systemText !== undefined ? { systemText: agent.systemText } : {}),
    permissions: agent.permissions,
    ...(agent.sandbox ? { sandbox: agent.sandbox } : {}),
    ...extra,
  };
}
