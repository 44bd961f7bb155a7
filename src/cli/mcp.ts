// `agentwire mcp`: the MCP server (stdio) an agent CLI starts for one run. It is a thin process:
// each tool call goes, with the run's token from the environment, over the tools socket to the
// process that started the run (the relay, or `agentwire chat`), which does the work and answers
// with one sentence. Its stdout belongs to the MCP protocol: nothing else may be written there.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { TOOL_SERVER_NAME, TOOLS_RENAME_ENV } from '../agents/tool-server.js';
import { isToolName, TOOLS, type ToolName } from '../tools/schemas.js';
import { VERSION } from '../version.js';
import {
  callRelay,
  callStamp,
  listUserTools,
  type ToolCallAnswer,
  type UserToolListing,
} from './tool-call.js';

export { callTimeoutMs, NOT_IN_RUN, NOT_RUNNING } from './tool-call.js';

const result = (a: ToolCallAnswer): CallToolResult => ({
  content: [{ type: 'text', text: a.text }],
  ...(a.isError && { isError: true }),
});

/**
 * Pure: the name each tool is listed under (TOOLS_RENAME_ENV). Only our own tools are renamed, to a
 * plain name no other tool has; anything else in the value is ignored (the tool keeps its name).
 */
export function listedNames(env: NodeJS.ProcessEnv): Record<ToolName, string> {
  const names = Object.fromEntries(Object.keys(TOOLS).map((t) => [t, t])) as Record<ToolName, string>;
  let asked: unknown;
  try {
    asked = JSON.parse(env[TOOLS_RENAME_ENV] ?? '{}');
  } catch {
    return names;
  }
  if (typeof asked !== 'object' || asked === null) return names;
  for (const [tool, to] of Object.entries(asked)) {
    if (!isToolName(tool) || typeof to !== 'string' || !/^[a-z][a-z0-9_]{0,39}$/.test(to)) continue;
    if (Object.values(names).includes(to)) continue;
    names[tool] = to;
  }
  return names;
}

/**
 * A user's tool's JSON schema as the SDK lists it: a zod object that takes any arguments (the relay
 * checks them, or the user's server does) and whose listed schema is the user's own (zod puts a
 * schema's meta into its JSON schema). Keys zod would read as its own (`id`) or that the SDK sets
 * are left out.
 */
export function listedSchema(schema: Record<string, unknown>): z.ZodType {
  const { $schema: _s, $id: _i, id: _id, ...rest } = schema;
  return z.looseObject({}).meta(rest);
}

/**
 * The server with every tool registered; `env` carries the run's token and socket. `user`: the
 * user's own tools the relay listed, registered after ours under their namespaced names; one that
 * would take a name of ours is left out.
 */
export function createMcpServer(env: NodeJS.ProcessEnv, user: readonly UserToolListing[] = []): McpServer {
  const server = new McpServer({ name: TOOL_SERVER_NAME, version: VERSION });
  const listed = listedNames(env);
  for (const [name, tool] of Object.entries(TOOLS) as [ToolName, (typeof TOOLS)[ToolName]][]) {
    // The relay is always asked for the tool by its own name, whatever the CLI calls it.
    server.registerTool(
      listed[name],
      { description: tool.description, inputSchema: tool.input },
      async (args: unknown, extra: { signal?: AbortSignal }) => {
        // Stamped first: the call belongs to the turn that was running when the CLI made it.
        const issued = callStamp();
        return result(await callRelay(env, name, args ?? {}, extra?.signal, issued));
      },
    );
  }
  const taken = new Set(Object.values(listed));
  for (const t of user) {
    if (taken.has(t.name) || isToolName(t.name)) continue;
    taken.add(t.name);
    server.registerTool(
      t.name,
      { description: t.description, inputSchema: listedSchema(t.inputSchema) },
      async (args: unknown, extra: { signal?: AbortSignal }) => {
        const issued = callStamp();
        return result(await callRelay(env, t.name, args ?? {}, extra?.signal, issued));
      },
    );
  }
  return server;
}

/** Serves MCP on stdin/stdout until the CLI closes them. */
export async function serveMcp(env: NodeJS.ProcessEnv): Promise<void> {
  const server = createMcpServer(env, await listUserTools(env));
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    process.stdin.once('end', () => resolve());
    process.stdin.once('close', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close();
}

/** Listed in --help; bin.ts starts `agentwire mcp` without loading the other commands. */
