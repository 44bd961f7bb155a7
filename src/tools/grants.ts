// The queue's ToolGrantor: each run gets a fresh token for its chat and the `agentwire mcp` command
// its CLI starts, and the token is revoked when the run ends. A warm process gets a token of its
// own instead (`warm.open`), bound to the run for each turn it serves (`warm.bind`).
import { TOOLS_SOCKET_ENV, TOOLS_TIMEOUT_ENV, TOOLS_TOKEN_ENV } from '../agents/tool-server.js';
import type { ProcessTools, ToolServer, WarmTools } from '../agents/types.js';
import type { ToolGrantor } from '../queue/ports.js';
import { TOOL_NAMES } from './schemas.js';
import { TOKEN_MARGIN_MS, type ToolTokens } from './tokens.js';

export interface GrantorDeps {
  tokens: ToolTokens;
  /** The control socket tool calls reach this process by. */
  socket: string;
  /** This Node and the agentwire entry point: `agentwire mcp` is `[command, ...args, 'mcp']`. */
  command: string;
  args: readonly string[];
  /** More environment for `agentwire mcp` (the Node compile cache; runner/compile-cache.ts). */
  env?: Record<string, string>;
}

export function toolGrantor(d: GrantorDeps): ToolGrantor {
  return (run) => {
    // A call may last as long as its run may (ask_user waits for the person): the run's timeout
    // ends the turn anyway, so no CLI's own tool timeout should end the call first.
    const callTimeoutMs = run.timeoutMs + TOKEN_MARGIN_MS;
    const serverFor = (token: string): ToolServer => ({
      command: d.command,
      args: [...d.args, 'mcp'],
      env: {
        ...d.env,
        [TOOLS_TOKEN_ENV]: token,
        [TOOLS_SOCKET_ENV]: d.socket,
        [TOOLS_TIMEOUT_ENV]: String(callTimeoutMs),
      },
      tools: TOOL_NAMES,
      callTimeoutMs,
    });
    const token = d.tokens.mint(
      {
        chat: run.chat,
        runKey: run.runKey,
        cwd: run.cwd,
        ...(run.agent !== undefined && { agent: run.agent }),
        ...(run.role !== undefined && { role: run.role }),
        ...(run.personWaitMs && { personWaitMs: run.personWaitMs }),
      },
      run.timeoutMs,
    );
    const tokenOf = (p: ProcessTools) => p.server.env[TOOLS_TOKEN_ENV] ?? '';
    const warm: WarmTools = {
      open: (lane) => {
        const own = d.tokens.mintProcess(lane);
        return { lane, server: serverFor(own), close: () => d.tokens.closeProcess(own) };
      },
      bind: (p) => {
        const r = d.tokens.bind(tokenOf(p), token, run.lane);
        return r.ok
          ? { type: 'bound', unbind: () => d.tokens.unbind(tokenOf(p), token) }
          : { type: 'refused', reason: r.error };
      },
    };
    return { server: serverFor(token), warm, release: () => d.tokens.revoke(token) };
  };
}
