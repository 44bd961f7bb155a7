// `agentwire mcp`: the MCP server (stdio) an agent CLI starts for one run. It is a thin process:
// each tool call goes, with the run's token from the environment, over the control socket to the
// process that started the run (the relay, or `agentwire chat`), which does the work and answers
// with one sentence. Its stdout belongs to the MCP protocol: nothing else may be written there.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TOOL_SERVER_NAME, TOOLS_SOCKET_ENV, TOOLS_TOKEN_ENV } from '../agents/tool-server.js';
import { type ControlCall, callControl } from '../control/client.js';
import { TOOLS, TOOLS_METHOD, type ToolName } from '../tools/schemas.js';
import { VERSION } from '../version.js';

export const NOT_IN_RUN = `agentwire's tools work only inside a run agentwire started (${TOOLS_TOKEN_ENV} is not set).`;
export const NOT_RUNNING =
  'agentwire is not running any more (the relay or `agentwire chat` that started this run has stopped), so this tool cannot act.';

/** The relay may still be opening its socket when a run it recovered at start calls a tool. */
const RETRY_MS = [100, 300, 600, 1000];

/** How long a call may take before this process gives up on the relay. */
const CALL_MS = 60_000;
/**
 * ask_user waits for a person: the relay answers it by itself (the answer, its own timeout,
 * tools.askTimeoutMinutes once shown, or the run's end) and a relay that dies closes the socket, so
 * this only bounds a relay that hangs. It must outlast the longest wait the relay allows (a question
 * may first wait its turn behind others in the chat).
 */
const ASK_CALL_MS = 48 * 60 * 60_000;

/** How long this process waits for the relay's answer to one call of `tool`. */
export const callTimeoutMs = (tool: ToolName): number => (tool === 'ask_user' ? ASK_CALL_MS : CALL_MS);

async function callRelay(env: NodeJS.ProcessEnv, tool: ToolName, args: unknown): Promise<CallToolResult> {
  const token = env[TOOLS_TOKEN_ENV];
  const socket = env[TOOLS_SOCKET_ENV];
  if (!token || !socket) return error(NOT_IN_RUN);
  const timeoutMs = callTimeoutMs(tool);
  let r: ControlCall = await callControl(socket, TOOLS_METHOD, { token, tool, args }, { timeoutMs });
  for (const wait of RETRY_MS) {
    if (r.ok || !r.notRunning) break;
    await new Promise((resolve) => setTimeout(resolve, wait));
    r = await callControl(socket, TOOLS_METHOD, { token, tool, args }, { timeoutMs });
  }
  if (r.ok)
    return { content: [{ type: 'text', text: String((r.result as { text?: unknown })?.text ?? '') }] };
  return error(r.notRunning ? NOT_RUNNING : r.error);
}

const error = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });

/** The server with every tool registered; `env` carries the run's token and socket. */
export function createMcpServer(env: NodeJS.ProcessEnv): McpServer {
  const server = new McpServer({ name: TOOL_SERVER_NAME, version: VERSION });
  for (const [name, tool] of Object.entries(TOOLS) as [ToolName, (typeof TOOLS)[ToolName]][]) {
    server.registerTool(name, { description: tool.description, inputSchema: tool.input }, (args: unknown) =>
      callRelay(env, name, args ?? {}),
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
