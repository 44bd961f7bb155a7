// How each CLI is given agentwire's MCP server for one cold run, checked against the pinned CLIs
// (docs/tools.md has the table). Never the user's own config files: flags, environment, or a file
// in our state folder that lives for the run. Each spec points its `tools` at one of these.
import { join } from 'node:path';
import { stdioEntry, TOOL_SERVER_NAME, TOOLS_SOCKET_ENV, TOOLS_TOKEN_ENV } from './tool-server.js';
import type { ToolServer, ToolWiring } from './types.js';

/**
 * claude: `--mcp-config <file> --strict-mcp-config`, and each tool allowed by name (in `-p` mode an
 * MCP tool that is not allowed is refused). The file keeps the token out of argv. Tool search is
 * turned off for the run: with it on, MCP tools are only named in the system prompt and the model
 * must load them with ToolSearch first (seen with claude-code 2.1.x against the fake model).
 * `--strict-mcp-config` means the user's own MCP servers are not loaded in relay runs.
 */
export function claudeTools(server: ToolServer, runDir: string): ToolWiring {
  const file = join(runDir, 'claude-mcp.json');
  const config = { mcpServers: { [TOOL_SERVER_NAME]: { type: 'stdio', ...stdioEntry(server) } } };
  return {
    args: [
      '--mcp-config',
      file,
      '--strict-mcp-config',
      '--allowedTools',
      server.tools.map((t) => `mcp__${TOOL_SERVER_NAME}__${t}`).join(','),
    ],
    env: { ENABLE_TOOL_SEARCH: 'false' },
    files: [{ path: file, content: JSON.stringify(config) }],
  };
}

/** A TOML value for `-c key=value` (JSON strings and arrays of strings are valid TOML). */
const toml = (v: string | readonly string[]): string => JSON.stringify(v);

/**
 * codex: no flag for a server, so `-c mcp_servers.agentwire.*` per run. Codex starts MCP servers
 * with a cleaned environment; `env_vars` names the variables it passes through from its own, which
 * keeps the token out of argv. Tools of this server are approved without asking (`codex exec` has
 * nobody to ask).
 */
export function codexTools(server: ToolServer): ToolWiring {
  const key = `mcp_servers.${TOOL_SERVER_NAME}`;
  return {
    args: [
      '-c',
      `${key}.command=${toml(server.command)}`,
      '-c',
      `${key}.args=${toml(server.args)}`,
      '-c',
      `${key}.env_vars=${toml([TOOLS_TOKEN_ENV, TOOLS_SOCKET_ENV])}`,
      '-c',
      `${key}.default_tools_approval_mode="approve"`,
    ],
  };
}

/**
 * gemini: `GEMINI_CLI_SYSTEM_SETTINGS_PATH` points the system-settings layer at a per-run file whose
 * `mcpServers` is shallow-merged with the user's own (verified in gemini-cli 0.61's bundle). `trust`
 * skips the confirmation a non-interactive run cannot answer. It replaces a machine-wide system
 * settings file for these runs (rare on a personal machine; docs/tools.md says so). gemini skips a
 * settings file with a group- or world-writable folder above it (/tmp): the state folder must not be.
 */
export function geminiTools(server: ToolServer, runDir: string): ToolWiring {
  const file = join(runDir, 'gemini-settings.json');
  const settings = { mcpServers: { [TOOL_SERVER_NAME]: { ...stdioEntry(server), trust: true } } };
  return {
    args: [],
    env: { GEMINI_CLI_SYSTEM_SETTINGS_PATH: file },
    files: [{ path: file, content: JSON.stringify(settings) }],
  };
}

/**
 * opencode: `OPENCODE_CONFIG_CONTENT` is merged over the global and project configs (verified in
 * opencode 1.18's config loader), so the user's opencode.json is read as usual and never written.
 */
export function opencodeTools(server: ToolServer): ToolWiring {
  const config = {
    mcp: {
      [TOOL_SERVER_NAME]: {
        type: 'local',
        command: [server.command, ...server.args],
        environment: { ...server.env },
        enabled: true,
      },
    },
  };
  return { args: [], env: { OPENCODE_CONFIG_CONTENT: JSON.stringify(config) } };
}
