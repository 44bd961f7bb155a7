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
  /** The tools as an in-process extension (ToolServer.toolExtension). */
  toolExtension?: string;
  /**
   * A socket of its own for a sandboxed run or process, taking only `token` (host.ts); its path
   * replaces `socket` in that run's environment and is bound into its sandbox. Absent: `socket`.
   */
  ownSocket?: (token: string) => { path: string; close(): void };
  /** The user's own tools are configured: the server offers more than TOOL_NAMES (ToolServer.userTools). */
  userTools?: boolean;
}

export function toolGrantor(d: GrantorDeps): ToolGrantor {
  return (run) => {
    // A call may last as long as its run may (ask_user waits for the person): the run's timeout
    // ends the turn anyway, so no CLI's own tool timeout should end the call first.
    const callTimeoutMs = run.timeoutMs + TOKEN_MARGIN_MS;
    // A sandboxed run or process gets a socket that takes its own token only, so a token of another
    // run it might learn is refused there (docs/access.md); others share `socket`.
    const own = run.sandboxed ? d.ownSocket : undefined;
    const serverFor = (token: string, socket = d.socket): ToolServer => ({
      command: d.command,
      args: [...d.args, 'mcp'],
      env: {
        ...d.env,
        [TOOLS_TOKEN_ENV]: token,
        [TOOLS_SOCKET_ENV]: socket,
        [TOOLS_TIMEOUT_ENV]: String(callTimeoutMs),
      },
      tools: TOOL_NAMES,
      ...(d.userTools && { userTools: true }),
      callTimeoutMs,
      ...(d.toolExtension && { toolExtension: d.toolExtension }),
    });
    const token = d.tokens.mint(
      {
        chat: run.chat,
        runKey: run.runKey,
        cwd: run.cwd,
        ...(run.agent !== undefined && { agent: run.agent }),
        ...(run.role !== undefined && { role: run.role }),
        ...(run.personWaitMs && { personWaitMs: run.personWaitMs }),
        ...(run.permissions !== undefined && { permissions: run.permissions }),
        ...(run.approve && { approve: run.approve }),
        ...(run.fence && { fence: run.fence }),
      },
      run.timeoutMs,
    );
    const tokenOf = (p: ProcessTools) => p.server.env[TOOLS_TOKEN_ENV] ?? '';
    const warm: WarmTools = {
      open: (sessionKey) => {
        const mine = d.tokens.mintProcess(sessionKey);
        const sock = own?.(mine);
        return {
          sessionKey,
          server: serverFor(mine, sock?.path),
          close: () => {
            d.tokens.closeProcess(mine);
            sock?.close();
          },
        };
      },
      bind: (p) => {
        const r = d.tokens.bind(tokenOf(p), token, run.sessionKey);
        return r.ok
          ? { type: 'bound', unbind: () => d.tokens.unbind(tokenOf(p), token) }
          : { type: 'refused', reason: r.error };
      },
    };
    const sock = own?.(token);
    return {
      server: serverFor(token, sock?.path),
      warm,
      release: () => {
        d.tokens.revoke(token);
        sock?.close();
      },
    };
  };
}
