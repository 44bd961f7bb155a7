// One tool call from a CLI's side to the relay: the run's token and socket from the environment,
// the relay's `tools.call` over its tools socket, its sentence back. `agentwire mcp` (mcp.ts)
// and the pi extension (tool-extension.ts, loaded inside pi's own process) both call through here,
// so the two doors answer alike.

import { z } from 'zod';
import { TOOLS_SOCKET_ENV, TOOLS_TIMEOUT_ENV, TOOLS_TOKEN_ENV } from '../agents/tool-server.js';
import { type ControlCall, callControl } from '../control/client.js';
import { TOOLS_LIST_METHOD, TOOLS_METHOD, type ToolName } from '../tools/schemas.js';

export const NOT_IN_RUN = `agentwire's tools work only inside a run agentwire started (${TOOLS_TOKEN_ENV} is not set).`;
export const NOT_RUNNING =
  'agentwire is not running any more (the relay or `agentwire chat` that started this run has stopped), so this tool cannot act.';

/** The relay may still be opening its socket when a run it recovered at start calls a tool. */
const RETRY_MS = [100, 300, 600, 1000];

/**
 * When a call was made, for the relay to tell which turn of a warm process made it (tools/tokens.ts):
 * the system's monotonic clock in ns, which every process on the machine reads alike. Taken the
 * moment the CLI hands the call over, before anything is awaited.
 */
export const callStamp = (): string => process.hrtime.bigint().toString();

/** What the agent reads: the relay's sentence, or why the call did not act. */
export interface ToolCallAnswer {
  text: string;
  isError: boolean;
}

/**
 * How long one call waits for the relay: the run's own limit (TOOLS_TIMEOUT_ENV, as the CLI was
 * told), since `ask_user` waits for the person; without it (an older relay), eleven minutes.
 */
export function callTimeoutMs(env: NodeJS.ProcessEnv): number {
  const n = Number(env[TOOLS_TIMEOUT_ENV]);
  return Number.isSafeInteger(n) && n > 0 ? n : 11 * 60_000;
}

export async function callRelay(
  env: NodeJS.ProcessEnv,
  /** One of ours, or one of the user's own (`<server>__<tool>`, as the relay listed it). */
  tool: ToolName | string,
  args: unknown,
  signal?: AbortSignal,
  issued: string = callStamp(),
): Promise<ToolCallAnswer> {
  const token = env[TOOLS_TOKEN_ENV];
  const socket = env[TOOLS_SOCKET_ENV];
  if (!token || !socket) return { text: NOT_IN_RUN, isError: true };
  // The CLI may give up on the call first (its own timeout, or the turn stopped): the connection
  // is closed then, so nothing waits on an answer nobody will read.
  const opts = { timeoutMs: callTimeoutMs(env), ...(signal && { signal }) };
  const params = { token, tool, args, issued };
  let r: ControlCall = await callControl(socket, TOOLS_METHOD, params, opts);
  for (const wait of RETRY_MS) {
    if (r.ok || !r.notRunning) break;
    await new Promise((resolve) => setTimeout(resolve, wait));
    r = await callControl(socket, TOOLS_METHOD, params, opts);
  }
  if (r.ok) return { text: String((r.result as { text?: unknown })?.text ?? ''), isError: false };
  return { text: r.notRunning ? NOT_RUNNING : r.error, isError: true };
}

/** A user's tool as the relay lists it (tools/user-tools.ts ListedTool), checked on arrival. */
const listedTool = z.object({
  name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
  description: z.string().max(10_000),
  inputSchema: z.record(z.string(), z.unknown()),
});
export type UserToolListing = z.infer<typeof listedTool>;

/**
 * How long `agentwire mcp` waits for the list at its start: the CLI waits for the server's tools
 * (codex gives a server 10 s to start), so a slow relay leaves the user's tools out, not ours.
 */
export const LIST_WAIT_MS = 8000;

/**
 * The user's own tools (tools.servers, tools.scripts) the relay offers this run, asked once at the
 * start. Any trouble (no token, the relay gone or older, a bad answer) lists none: agentwire's own
 * tools are offered whatever happens here.
 */
export async function listUserTools(env: NodeJS.ProcessEnv): Promise<UserToolListing[]> {
  const token = env[TOOLS_TOKEN_ENV];
  const socket = env[TOOLS_SOCKET_ENV];
  if (!token || !socket) return [];
  const r = await callControl(socket, TOOLS_LIST_METHOD, { token }, { timeoutMs: LIST_WAIT_MS });
  if (!r.ok) return [];
  const tools = (r.result as { tools?: unknown } | null)?.tools;
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((t) => {
    const p = listedTool.safeParse(t);
    return p.success ? [p.data] : [];
  });
}
