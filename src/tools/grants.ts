// The queue's ToolGrantor: each run gets a fresh token for its chat and the `agentwire mcp` command
// its CLI starts, and the token is revoked when the run ends.
import { TOOLS_SOCKET_ENV, TOOLS_TOKEN_ENV } from '../agents/tool-server.js';
import type { ToolGrantor } from '../queue/ports.js';
import { TOOL_NAMES } from './schemas.js';
import type { ToolTokens } from './tokens.js';

export interface GrantorDeps {
  tokens: ToolTokens;
  /** The control socket tool calls reach this process by. */
  socket: string;
  /** This Node and the agentwire entry point: `agentwire mcp` is `[command, ...args, 'mcp']`. */
  command: string;
  args: readonly string[];
}

export function toolGrantor(d: GrantorDeps): ToolGrantor {
  return (run) => {
    const token = d.tokens.mint({ chat: run.chat, runKey: run.runKey, cwd: run.cwd }, run.timeoutMs);
    return {
      server: {
        command: d.command,
        args: [...d.args, 'mcp'],
        env: { [TOOLS_TOKEN_ENV]: token, [TOOLS_SOCKET_ENV]: d.socket },
        tools: TOOL_NAMES,
      },
      release: () => d.tokens.revoke(token),
    };
  };
}
