// agentwire's MCP server (`agentwire mcp`) as one run's CLI is told about it. Each CLI takes MCP
// servers its own way (its spec's `tools` function); this file holds what they share and the one
// rule for merging the wiring into the built invocation. Nothing here writes the user's own CLI
// config: flags, environment, or files in a folder of our state folder that lives for one run.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Invocation, ToolServer, ToolWiring } from './types.js';

export type { ToolServer, ToolWiring } from './types.js';

/** The MCP server's name as the CLIs see it: tools are `mcp__agentwire__send_message` and so on. */
export const TOOL_SERVER_NAME = 'agentwire';

/** Environment the MCP server reads: the run's token and the socket of the process that minted it. */
export const TOOLS_TOKEN_ENV = 'AGENTWIRE_TOOLS_TOKEN';
export const TOOLS_SOCKET_ENV = 'AGENTWIRE_TOOLS_SOCKET';
/** How long the MCP server waits for the relay's answer to one call (ToolServer.callTimeoutMs). */
export const TOOLS_TIMEOUT_ENV = 'AGENTWIRE_TOOLS_TIMEOUT_MS';
/**
 * JSON `{tool: name}`: tools the MCP server lists under another name, for a CLI that hides a tool
 * of ours whose name clashes with one of its own (gemini and `ask_user`, see agents/gemini.ts).
 */
export const TOOLS_RENAME_ENV = 'AGENTWIRE_TOOLS_RENAME';

/**
 * The tools as an extension a CLI without MCP loads into its own process (src/cli/tool-extension.ts),
 * as tsc builds it beside the bin; `npm run build` also bundles it into one file (ToolServer.toolExtension).
 */
export const TOOL_EXTENSION = 'tool-extension.js';

/** Where the tools' files live, inside the agent's state folder (0700). */
export const toolRoot = (stateDir: string): string => join(stateDir, 'tool-runs');

/** A warm process's own folder in it: its files live as long as the process. */
export const toolRunDir = (stateDir: string, runId: string): string => join(toolRoot(stateDir), runId);

/** A cold run's files sit in the root itself, named for the run: no folder per message. */
export const runFileIn =
  (root: string, runId: string) =>
  (name: string): string =>
    join(root, `${runId}.${name}`);

/**
 * Pure: the invocation with the wiring merged in. Flags go before an end-of-options `--` when the
 * argv has one (codex), else at the end (the others read the prompt from stdin). The server's own
 * environment always goes into the CLI's: most CLIs hand it down to the servers they start.
 */
export function withTools(inv: Invocation, server: ToolServer, wiring: ToolWiring): Invocation {
  const end = inv.argv.indexOf('--');
  const argv =
    end < 0
      ? [...inv.argv, ...wiring.args]
      : [...inv.argv.slice(0, end), ...wiring.args, ...inv.argv.slice(end)];
  return { ...inv, argv, env: { ...inv.env, ...server.env, ...wiring.env } };
}

/** The `mcpServers` entry claude and gemini read (stdio: command, args, env). */
export function stdioEntry(server: ToolServer): {
  command: string;
  args: string[];
  env: Record<string, string>;
} {
  return { command: server.command, args: [...server.args], env: { ...server.env } };
}

/** Writes the wiring's files (folder 0700, files 0600); the returned function removes the folder. */
export function writeToolFiles(runDir: string, files: ToolWiring['files']): () => void {
  if (!files?.length) return () => undefined;
  mkdirSync(runDir, { recursive: true, mode: 0o700 });
  for (const f of files) writeFileSync(f.path, f.content, { mode: 0o600 });
  return () => rmSync(runDir, { recursive: true, force: true });
}

/**
 * A cold run's files (paths from runFileIn: all in the tool root), written off the event loop, and
 * the function that unlinks them. One write and one unlink per file and message: a folder made and
 * removed per message was most of what the tools cost the relay per message (bench/relay-overhead's
 * profile), and doing it synchronously blocked every webhook and every other chat's run 1–4 ms on a
 * busy disk. `wx`: a file already at the path (a guess at our name) is never written through.
 */
export async function writeRunFiles(files: ToolWiring['files']): Promise<() => Promise<void>> {
  if (!files?.length) return async () => undefined;
  const written: string[] = [];
  const remove = async () => {
    await Promise.all(written.map((path) => unlink(path).catch(() => undefined)));
  };
  try {
    for (const f of files) {
      await writeFile(f.path, f.content, { mode: 0o600, flag: 'wx' }).catch(async (err) => {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        // The first run of this agent (or the folder was removed): made once, then written.
        await mkdir(dirname(f.path), { recursive: true, mode: 0o700 });
        await writeFile(f.path, f.content, { mode: 0o600, flag: 'wx' });
      });
      written.push(f.path);
    }
  } catch (err) {
    await remove();
    throw err;
  }
  return remove;
}
