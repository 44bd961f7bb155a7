// The agent's tools as the relay and `agentwire chat` serve them (docs/tools.md): the tool host on
// the process's socket, a socket of its own per sandboxed run, the user's own tools, and requests to
// other agents as events; `tools.call` and `tools.list` on a control registry.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TOOL_EXTENSION } from './agents/tool-server.js';
import { channelPlugin } from './channels/registry.js';
import type { Context } from './cli/context.js';
import type { Config } from './config/schema.js';
import { MethodError, MethodRegistry } from './control/methods.js';
import { openRunSocket } from './control/server.js';
import { type ChunkRules, channelRules } from './core/chunk.js';
import type { ChannelName } from './core/types.js';
import { chatResolver } from './events/resolve.js';
import { ownFile } from './own-files.js';
import { confinedRoots } from './queue/access.js';
import { mediaPolicy } from './queue/adapters.js';
import { fencedReplies } from './queue/fenced-replies.js';
import type { ChannelMap } from './queue/ports.js';
import type { ProcessOwner } from './queue/process-owner.js';
import { compileCacheDir, compileCacheEnv } from './runner/compile-cache.js';
import type { Launcher } from './runner/launcher/client.js';
import type { Store } from './store/open.js';
import { ToolError } from './tools/handlers.js';
import { createToolHost, type ToolHost, type ToolMethods, type ToolsEntry } from './tools/host.js';
import { TOOLS_LIST_METHOD, TOOLS_METHOD } from './tools/schemas.js';
import { createUserTools } from './tools/user-tools.js';

/**
 * `agentwire mcp` as this install runs it: this Node and the built entry point, when there is one;
 * and the tools as an in-process extension (for a CLI without MCP), bundled by the build into one
 * file (scripts/bundle-mcp.mjs; about 40 ms less of that CLI's start than its modules, zod's among
 * them), else as tsc built it.
 */
export function agentwireEntry(): ToolsEntry | undefined {
  const bin = fileURLToPath(ownFile('cli/bin.js'));
  if (!existsSync(bin)) return undefined;
  const bundled = fileURLToPath(ownFile('tool-extension-bundle.js'));
  const toolExtension = existsSync(bundled) ? bundled : fileURLToPath(ownFile(`cli/${TOOL_EXTENSION}`));
  return { command: process.execPath, args: [bin], toolExtension };
}

/**
 * The tools for the runs of this process, answering on `socket` (docs/tools.md). `entry` defaults
 * to this install's; without one (running from source) runs get no tools, and the log says so.
 * `textRules` are the channels' splitter rules (default: the registry's plug-ins), the same the
 * queue cuts replies by, so send_message's text is cut exactly like a reply.
 */
export function createTools(
  ctx: Context,
  store: Pick<Store, 'queue' | 'tasks'> & Partial<Pick<Store, 'events'>>,
  channels: ChannelMap,
  socket: string,
  entry = agentwireEntry(),
  textRules: (channel: ChannelName) => ChunkRules | undefined = (channel) =>
    channelPlugin(channel)?.textRules(ctx.config),
  owner?: ProcessOwner,
  /** The relay's launcher (`agents.launcher`): the user's scripts and stdio servers start from it. */
  launcher?: Launcher,
): ToolHost {
  const { config, paths, log } = ctx;
  if (config.tools.enabled && !entry)
    log.warn('agentwire is not built (no cli/bin.js next to this file): runs get no tools');
  return createToolHost({
    enabled: config.tools.enabled,
    limits: config.tools,
    targets: config.targets,
    // A tool's send is a write of its run: fenced by the chat's lease when processes share the store.
    store: owner ? { queue: fencedReplies(store.queue, owner), tasks: store.tasks } : store,
    mediaPolicy: mediaPolicy(config, paths.stagedMedia, confinedRoots(config, paths)),
    textRules: (channel) => channelRules(channels.get(channel)?.textLimit, textRules(channel)),
    socket,
    // A sandboxed run's tools answer on a socket of its own that takes only its token.
    runSockets: {
      dir: join(dirname(socket), 'tool-sockets'),
      open: (path, methods) => {
        const registry = new MethodRegistry();
        registerToolsMethod(registry, methods);
        return openRunSocket(path, registry, log.child({ sub: 'tools' }));
      },
    },
    // The helper is a Node program started once per agent process: it gets the compile cache too
    // (codex starts its MCP servers with a short list of variables, not the agent's environment).
    ...(entry && { entry: { ...entry, env: compileCacheEnv(compileCacheDir(paths.home), ctx.env) } }),
    timeZone: () => Intl.DateTimeFormat().resolvedOptions().timeZone,
    ...(hasUserTools(config.tools) && {
      user: createUserTools({
        servers: config.tools.servers,
        scripts: config.tools.scripts,
        from: ctx.env,
        log: log.child({ sub: 'user-tools' }),
        ...(launcher && { launcher }),
      }),
    }),
    // A request to another agent is an event addressed to a chat, stored and run by src/events/.
    ...(store.events && {
      agents: {
        list: config.agents.list,
        maxHops: config.tools.maxAgentHops,
        events: store.events,
        resolveChat: chatResolver(config.targets, (c) => channels.has(c)),
      },
    }),
  });
}

const hasUserTools = (t: Config['tools']): boolean =>
  Object.keys(t.servers).length + Object.keys(t.scripts).length > 0;

/**
 * `tools.call` and `tools.list` on a control registry: a ToolError is the agent's to read, anything
 * else is logged.
 */
export function registerToolsMethod(control: MethodRegistry, tools: ToolMethods): void {
  const told = (err: unknown) => {
    throw err instanceof ToolError ? new MethodError(err.message) : err;
  };
  control.register(TOOLS_METHOD, (params) => tools.call(params).catch(told));
  control.register(TOOLS_LIST_METHOD, (params) => tools.list(params).catch(told));
}
