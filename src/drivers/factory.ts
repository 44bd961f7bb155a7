// From an agent request (the resolved agent's settings: command, cwd, env, model, thinking, system
// text, state folder) to the warm driver of its kind, started with the same effect as that CLI's
// cold flags (docs/agents.md, docs/warm-agents.md), agentwire's tools included (warm-tools.ts).
// Pure: it starts nothing; `open` does (and `prepare`, which writes the tools' files).
import { basename, join } from 'node:path';
import { codexThreadTools } from '../agents/codex.js';
import { safeArg } from '../agents/common.js';
import { opencodeNoNetwork } from '../agents/opencode.js';
import { getSpec } from '../agents/registry.js';
import { toolInstalls, withToolsIn } from '../agents/sandbox-plan.js';
import type { AgentKind, AgentRequest, ToolServer } from '../agents/types.js';
import type { Sandbox } from '../core/sandbox.js';
import type { Logger } from '../log.js';
import type { Launcher } from '../runner/launcher/client.js';
import type { GroupGuard } from '../runner/spawn-stdio.js';
import { type AcpDriverOptions, acpDriver, acpHost } from './acp.js';
import { GEMINI_ASK_ARGS, opencodeAskConfig } from './ask-mode.js';
import { claudeDriver } from './claude.js';
import { APP_SERVER_ARGS, type CodexDriverOptions, codexDriver, codexHost } from './codex.js';
import { type HostRegistry, hostKey } from './hosts.js';
import { piDriver } from './pi.js';
import { endsStoppedTurns } from './stopped-turn.js';
import type { PermissionPolicy, SessionDriver } from './types.js';
import { NO_WIRING, processWiring } from './warm-tools.js';

/**
 * What a driver is built from: the request minus this turn's prompt, session and callbacks, and the
 * process's own tool server (not the run's: a warm process outlives its runs).
 */
export type DriverSettings = Pick<
  AgentRequest,
  | 'command'
  | 'cwd'
  | 'env'
  | 'model'
  | 'thinking'
  | 'systemText'
  | 'stateDir'
  | 'permissions'
  | 'readOnly'
  | 'networkTools'
  | 'sandbox'
> & {
  tools?: ToolServer;
  /** Where the process starts from (the relay's launcher, `agents.launcher`); none: this process. */
  launcher?: Launcher;
  /** After a cancel, how long a turn may take to end before its process is killed; default CANCEL_GRACE_MS. */
  cancelGraceMs?: number;
};

export type Built =
  | {
      type: 'driver';
      driver: SessionDriver;
      /** The process the session runs in, when other sessions may share it (the pool counts processes by it). */
      host?: string;
      /** Another session on the same process is mid-turn (a stopped turn must not end its processes). */
      othersBusy?: () => boolean;
      /** Writes the tools' files before the process starts; the result removes them when it closed. */
      prepare?: () => () => void;
    }
  | { type: 'cold_only'; reason: string };

/**
 * The configured policy (`agent.permissions`), `deny` when unset. A cold run is headless: none of
 * the five asks a question in its one-shot mode (claude -p has no prompt tool and refuses inside
 * the CLI; codex exec runs with approval `never`; gemini -p offers no tool that would ask; pi -p has
 * no dialogs; opencode run asks nothing by default), so a question that reaches a warm driver is
 * one cold mode could never have said yes to: `deny` keeps warm as cold. `ask` also puts each CLI
 * in a mode that asks (claude's prompt tool, codex's approval policy, gemini's approval mode,
 * opencode's rules: ./ask-mode.ts), and the config check refuses it for a cold agent.
 */
export function permissionOf(s: Pick<DriverSettings, 'permissions'>): PermissionPolicy {
  return s.permissions ?? 'deny';
}

/** The name errors use: the CLI's display name, or an ACP agent's program. */
export function driverName(kind: AgentKind, command: readonly string[]): string {
  return kind === 'acp' ? `ACP agent ${basename(command[0] ?? 'agent')}` : getSpec(kind).displayName;
}

/**
 * @param hosts where codex and ACP sessions find a process to share (./hosts.ts); without it each
 *   session starts its own, as claude's and pi's always do (their protocols hold one session a process).
 * @param log for the ACP driver's debug notes (a harmless misfit dropped, a stale end).
 */
export function buildDriver(
  kind: AgentKind,
  s: DriverSettings,
  guard?: GroupGuard,
  hosts?: HostRegistry,
  log?: Logger,
): Built {
  const b = buildBare(kind, s, guard, hosts, log);
  if (b.type !== 'driver') return b;
  // Every driver ends what a stopped turn started (./stopped-turn.ts), but not our tool server.
  const server = s.tools ? [s.tools.command, ...s.tools.args] : undefined;
  return { ...b, driver: endsStoppedTurns(b.driver, server, b.othersBusy) };
}

function buildBare(
  kind: AgentKind,
  s: DriverSettings,
  guard?: GroupGuard,
  hosts?: HostRegistry,
  log?: Logger,
): Built {
  const name = driverName(kind, s.command);
  const permission = permissionOf(s);
  const ask = permission === 'ask';
  // What every driver is given: its name, its permission policy and, when set, its cancel grace.
  const base = { name, permission, ...(s.cancelGraceMs !== undefined && { cancelGraceMs: s.cancelGraceMs }) };
  // codex takes the tools per thread (codexThreadTools), so its process has none of its own.
  const tools = kind === 'codex' ? NO_WIRING : processWiring(kind, s.tools, s.stateDir);
  // The tools' environment (opencode's inline config among it) first: `ask` merges over it.
  const withTools = { ...s.env, ...tools.env };
  // Sandboxed, the MCP helper the CLI starts runs inside too: agentwire's install, the tools socket
  // and this process's tool files are shown to it, read-only.
  const sandbox =
    s.sandbox?.type === 'bwrap' && s.tools
      ? { ...s.sandbox, plan: withToolsIn(s.sandbox.plan, s.tools, toolInstalls(s.tools), tools.files) }
      : s.sandbox;
  const proc = (argv: readonly string[], env = withTools) => ({
    argv,
    cwd: s.cwd,
    env,
    ...(sandbox ? { sandbox } : {}),
    ...(s.launcher && { launcher: s.launcher }),
  });
  const prep = tools.prepare ? { prepare: tools.prepare } : {};
  const extras = {
    ...(s.model !== undefined ? { model: s.model } : {}),
    ...(s.thinking !== undefined ? { thinking: s.thinking } : {}),
    ...(s.systemText !== undefined ? { systemText: s.systemText } : {}),
    ...(guard ? { guard } : {}),
  };
  try {
    switch (kind) {
      case 'claude':
        // The driver builds the cold spec's argv itself (claudeWarmArgv), with the session.
        return {
          type: 'driver',
          driver: claudeDriver({
            ...base,
            process: proc(s.command),
            toolArgs: tools.args,
            ...(s.networkTools === false && { networkTools: false }),
            ...extras,
          }),
          ...prep,
        };
      case 'codex':
        return {
          ...codexOn(hosts, {
            ...base,
            process: proc([...s.command, ...APP_SERVER_ARGS]),
            ...((s.tools || s.networkTools === false) && {
              threadConfig: {
                ...(s.tools && codexThreadTools(s.tools)),
                // As cold: its web search off for a run that must not use network tools.
                ...(s.networkTools === false && { web_search: 'disabled' }),
              },
            }),
            ...(s.readOnly && { sandbox: 'read-only' as const }),
            ...extras,
          }),
          ...prep,
        };
      case 'pi':
        return {
          type: 'driver',
          driver: piDriver({
            ...base,
            process: proc([...s.command, ...piFlags(s), ...tools.args]),
            // Where the cold spec puts a new session's file, so cold and warm share sessions.
            sessionDir: join(s.stateDir, 'pi-sessions'),
            ...(guard ? { guard } : {}),
          }),
        };
      case 'gemini': {
        // As cold: --skip-trust (the owner chose the folder) and --model.
        const argv = [...s.command, '--acp', '--skip-trust', ...(ask ? GEMINI_ASK_ARGS : [])];
        if (s.model !== undefined) argv.push('--model', safeArg(s.model, 'model'));
        return {
          ...acpOn(
            hosts,
            kind,
            {
              ...base,
              process: proc([...argv, ...tools.args]),
              ...guardOf(guard),
            },
            log,
          ),
          ...prep,
        };
      }
      case 'opencode':
        // `opencode acp` takes no --model / --variant; the session's model would need ACP's unstable
        // config options. So a model or thinking level keeps opencode cold rather than ignore it.
        if (s.model !== undefined || s.thinking !== undefined) {
          return { type: 'cold_only', reason: 'opencode acp cannot take agents.opencode.model / thinking' };
        }
        // As cold: its webfetch and websearch denied for a run that must not use network tools.
        return opencode(offNet(withTools, s.networkTools), ask, prep, (env) =>
          acpOn(
            hosts,
            kind,
            {
              ...base,
              process: proc([...s.command, 'acp', ...tools.args], env),
              ...guardOf(guard),
            },
            log,
          ),
        );
      case 'acp':
        // The tools (and their token) go in each session's `mcpServers`: chats can share the process.
        return acpOn(
          hosts,
          kind,
          {
            ...base,
            process: proc(s.command),
            mcpServers: tools.mcpServers,
            ...guardOf(guard),
          },
          log,
        );
      default:
        // A CLI registered since (agents/registry.ts) without a warm driver here: it runs cold.
        return { type: 'cold_only', reason: `${name} has no warm mode` };
    }
  } catch (err) {
    // A model that reads as a flag: refused before anything starts, as cold.
    return { type: 'cold_only', reason: (err as Error).message };
  }
}

const offNet = (env: Record<string, string>, networkTools: boolean | undefined) =>
  networkTools === false ? { ...env, ...opencodeNoNetwork(env) } : env;

/** opencode under `ask` gets rules that ask in its inline config; one that is not JSON is not dropped. */
function opencode(
  env: Record<string, string>,
  ask: boolean,
  prep: { prepare?: () => () => void },
  make: (env: Record<string, string>) => Built,
): Built {
  if (!ask) return { ...make(env), ...prep };
  const content = opencodeAskConfig(env.OPENCODE_CONFIG_CONTENT);
  if (content === undefined)
    return { type: 'cold_only', reason: 'agents.opencode.env.OPENCODE_CONFIG_CONTENT is not a JSON object' };
  return { ...make({ ...env, OPENCODE_CONFIG_CONTENT: content }), ...prep };
}

/**
 * The host key of a codex or ACP process: its argv and environment (the tools' token among it,
 * where the CLI takes the tools per process, so those chats never share), and the permission
 * policy its requests of no open session are answered by. Not the working folder: `thread/start`
 * and `session/new` give each session its own. And its sandbox: a sandboxed process shows one
 * chat's received files (and, per-chat, its folder), so chats whose sandboxes differ never share
 * one process, where one chat's session could read what only the other's sandbox shows.
 */
export function keyOf(o: {
  process: { argv: readonly string[]; env: Record<string, string>; sandbox?: Sandbox };
  permission: string;
}): string {
  const boxed = o.process.sandbox ? `\n${JSON.stringify(o.process.sandbox)}` : '';
  return `${o.permission}\n${hostKey(o.process.argv, o.process.env)}${boxed}`;
}

function codexOn(hosts: HostRegistry | undefined, o: CodexDriverOptions): Built {
  const host = hosts?.acquire('codex', keyOf(o), () => codexHost(o));
  const driver = codexDriver({ ...o, ...(host && { host }) });
  return { type: 'driver', driver, host: driver.hostId(), othersBusy: () => driver.othersBusy() };
}

function acpOn(
  hosts: HostRegistry | undefined,
  kind: AgentKind,
  given: AcpDriverOptions,
  log?: Logger,
): Built {
  const o: AcpDriverOptions = log ? { ...given, log } : given;
  const host = hosts?.acquire(kind, keyOf(o), () => acpHost(o));
  const driver = acpDriver({ ...o, ...(host && { host }) });
  return { type: 'driver', driver, host: driver.hostId(), othersBusy: () => driver.othersBusy() };
}

const guardOf = (guard: GroupGuard | undefined) => (guard ? { guard } : {});

/** pi's cold flags for model, thinking and system text (src/agents/pi.ts); --mode/--session are the driver's. */
function piFlags(s: DriverSettings): string[] {
  const out: string[] = [];
  if (s.model !== undefined) out.push('--model', safeArg(s.model, 'model'));
  if (s.thinking !== undefined) out.push('--thinking', safeArg(s.thinking, 'thinking level'));
  if (s.systemText)
    out.push('--append-system-prompt', s.systemText.startsWith('-') ? `\n${s.systemText}` : s.systemText);
  return out;
}
