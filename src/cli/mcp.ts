// `agentwire mcp`: the MCP server (stdio) an agent CLI starts for one run. It is a thin process:
// each tool call goes, with the run's token from the environment, over the control socket to the
// process that started the run (the relay, or `agentwire chat`), which does the work and answers
// with one sentence. Its stdout belongs to the MCP protocol: nothing else may be written there.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  TOOL_SERVER_NAME,
  TOOLS_RENAME_ENV,
  TOOLS_SOCKET_ENV,
  TOOLS_TIMEOUT_ENV,
  TOOLS_TOKEN_ENV,
} from '../agents/tool-server.js';
import { type ControlCall, callControl } from '../control/client.js';
import { isToolName, TOOLS, TOOLS_METHOD, type ToolName } from '../tools/schemas.js';
import { VERSION } from '../version.js';

export const NOT_IN_RUN = `agentwire's tools work only inside a run agentwire started (${TOOLS_TOKEN_ENV} is not set).`;
export const NOT_RUNNING =
  'agentwire is not running any more (the relay or `agentwire chat` that started this run has stopped), so this tool cannot act.';

/** The relay may still be opening its socket when a run it recovered at start calls a tool. */
const RETRY_MS = [100, 300, 600, 1000];

/**
 * How long one call waits for the relay: the run's own limit (TOOLS_TIMEOUT_ENV, as the CLI was
 * told), since `ask_user` waits for the person; without it (an older relay), eleven minutes.
 */
export function callTimeoutMs(env: NodeJS.ProcessEnv): number {
  const n = Number(env[TOOLS_TIMEOUT_ENV]);
  return Number.isSafeInteger(n) && n > 0 ? n : 11 * 60_000;
}

async function callRelay(
  env: NodeJS.ProcessEnv,
  tool: ToolName,
  args: unknown,
  signal?: AbortSignal,
): Promise<CallToolResult> {
  const token = env[TOOLS_TOKEN_ENV];
  const socket = env[TOOLS_SOCKET_ENV];
  if (!token || !socket) return error(NOT_IN_RUN);
  // The CLI may give up on the call first (its own timeout, or the turn stopped): the connection
  // is closed then, so nothing waits on an answer nobody will read.
  const opts = { timeoutMs: callTimeoutMs(env), ...(signal && { signal }) };
  let r: ControlCall = await callControl(socket, TOOLS_METHOD, { token, tool, args }, opts);
  for (const wait of RETRY_MS) {
    if (r.ok || !r.notRunning) break;
    await new Promise((resolve) => setTimeout(resolve, wait));
    r = await callControl(socket, TOOLS_METHOD, { token, tool, args }, opts);
  }
  if (r.ok)
    return { content: [{ type: 'text', text: String((r.result as { text?: unknown })?.text ?? '') }] };
  return error(r.notRunning ? NOT_RUNNING : r.error);
}

const error = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });

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

/** The server with every tool registered; `env` carries the run's token and socket. */
export function createMcpServer(env: NodeJS.ProcessEnv): McpServer {
  const server = new McpServer({ name: TOOL_SERVER_NAME, version: VERSION });
  const listed = listedNames(env);
  for (const [name, tool] of Object.entries(TOOLS) as [ToolName, (typeof TOOLS)[ToolName]][]) {
    // The relay is always asked for the tool by its own name, whatever the CLI calls it.
    server.registerTool(
      listed[name],
      { description: tool.description, inputSchema: tool.input },
      (args: unknown, extra: { signal?: AbortSignal }) => callRelay(env, name, args ?? {}, extra?.signal),
    );
  }
  return server;
}

/** Serves MCP on stdin/stdout until the CLI closes them. */
export async function serveMcp(env: NodeJS.ProcessEnv): Promise<void> {
  const server = createMcpServer(env);
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
