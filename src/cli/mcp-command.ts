// `agentwire mcp` in the command list. The server itself (src/cli/mcp.ts, and the MCP library under
// it) is loaded only when the command runs: like a channel's library (DESIGN.md rule 9), it would
// otherwise cost every other command, the relay included, its start-up time and memory (about
// 0.1 s and 8 MB at the relay's start, measured with bench/startup).
import type { Command } from 'commander';

export function register(program: Command): void {
  program
    .command('mcp')
    .description("agentwire's MCP server over stdio (started by the agent CLI for each run; docs/tools.md)")
    .action(async () => {
      const { serveMcp } = await import('./mcp.js');
      await serveMcp(process.env);
    });
}
