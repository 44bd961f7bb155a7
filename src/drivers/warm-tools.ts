// How a warm process of each CLI is given agentwire's MCP server when it starts (docs/tools.md): the
// same wiring as the CLI's cold runs (its spec's `tools`: flags, environment, files), with the
// process's own token and a folder of files that lives as long as the process. An ACP agent with no
// spec wiring gets the server in `session/new` / `session/load` (`mcpServers`), which every ACP
// agent must take over stdio. pi has no MCP: its spec's wiring loads our pi extension (`--extension`)
// instead, with the process's token in its environment. Never the user's own CLI config files.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { McpServerStdio } from '@agentclientprotocol/sdk';
import { getSpec } from '../agents/registry.js';
import { TOOL_SERVER_NAME, toolRunDir, writeToolFiles } from '../agents/tool-server.js';
import type { AgentKind, ProcessTools, ToolServer, ToolWiring, WarmTools } from '../agents/types.js';

export interface ProcessWiring {
  /** Appended to the process's argv (claude: after the cold flags it builds itself). */
  args: string[];
  /** Added to the process's environment. */
  env: Record<string, string>;
  /** For an ACP agent without spec wiring: the servers of every session it opens. */
  mcpServers: McpServerStdio[];
  /** Writes the files (folder 0700, files 0600) before the process starts; the result removes them. */
  prepare?: () => () => void;
  /** Where those files are (a sandbox shows the CLI this folder alone of the tools' files). */
  files: string[];
}

export const NO_WIRING: ProcessWiring = { args: [], env: {}, mcpServers: [], files: [] };

/** Whether a warm process of this kind can be given the tools at all (pi: through its extension). */
export function takesTools(kind: AgentKind): boolean {
  return kind === 'acp' || getSpec(kind).tools !== undefined;
}

/**
 * gemini and opencode take the server through their spec's wiring too, not ACP's `mcpServers`:
 * over ACP neither takes a tool-call timeout (ACP's stdio entry has none), and gemini 0.61 makes an
 * ACP-given server untrusted, so every call of ours would be a permission request.
 */
export function processWiring(
  kind: AgentKind,
  server: ToolServer | undefined,
  stateDir: string,
): ProcessWiring {
  if (!server) return NO_WIRING;
  if (kind === 'acp') return { ...NO_WIRING, mcpServers: [acpServer(server)] };
  const spec = getSpec(kind);
  if (!spec.tools) return NO_WIRING;
  const dir = toolRunDir(stateDir, `warm-${randomUUID()}`);
  const w: ToolWiring = spec.tools(server, (name) => join(dir, name));
  return {
    args: [...w.args],
    // As in cold (withTools): the server's environment goes into the CLI's, which hands it down.
    env: { ...server.env, ...w.env },
    mcpServers: [],
    files: w.files?.length ? [dir] : [],
    ...(w.files?.length ? { prepare: () => writeToolFiles(dir, w.files) } : {}),
  };
}

/** ACP's stdio server entry: environment as name/value pairs. */
export function acpServer(server: ToolServer): McpServerStdio {
  return {
    name: TOOL_SERVER_NAME,
    command: server.command,
    args: [...server.args],
    env: Object.entries(server.env).map(([name, value]) => ({ name, value })),
  };
}

/**
 * For one turn, the process's token acts for the turn's run (the pool calls the result when the
 * turn ended). A refusal is told to `warn` and the turn runs, its tools answering "between turns".
 */
export function bindTurn(
  tools: ProcessTools | undefined,
  run: WarmTools | undefined,
  warn: (reason: string) => void,
): (() => void) | undefined {
  if (!tools || !run) return undefined;
  const b = run.bind(tools);
  if (b.type === 'bound') return b.unbind;
  warn(b.reason);
  return undefined;
}
