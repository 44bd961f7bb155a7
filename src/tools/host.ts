// The tools in a process that runs agents (the relay, `agentwire chat`): the tokens, the grantor
// the queue hands each run, and the handler behind the tools socket's `tools.call`. Built before
// the queue (which needs the grantor) and bound to it afterwards (sends start its outbox).
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { ChunkRules } from '../core/chunk.js';
import type { ChannelName, ChatKey } from '../core/types.js';
import type { MediaPolicy, ToolGrantor } from '../queue/ports.js';
import type { QueueStore } from '../store/queue-ops.js';
import type { TaskStore } from '../store/tasks.js';
import { toolGrantor } from './grants.js';
import { type AgentLinks, callTool, type ToolDeps, ToolError, type ToolLimits } from './handlers.js';
import { type ToolAnswer, toolListParams } from './schemas.js';
import { toolChanger, toolSender } from './send.js';
import { TOKEN_INVALID, ToolTokens } from './tokens.js';
import type { ListedTool, UserTools } from './user-tools.js';

/**
 * How runs start `agentwire mcp` (this Node and the built bin, `args`), with more environment for it,
 * and the same tools as an in-process extension for a CLI without MCP (ToolServer.toolExtension).
 */
export interface ToolsEntry {
  command: string;
  args: readonly string[];
  env?: Record<string, string>;
  toolExtension?: string;
}

export interface ToolHostOptions {
  enabled: boolean;
  limits: ToolLimits;
  /** The config's `targets`: the names send_message's `to` may take (with `limits.sendTo`). */
  targets?: Readonly<Record<string, string>>;
  /** The outbox (sends) and the message a run answers (chat_info), and where tasks are kept. */
  store: {
    queue: Pick<QueueStore, 'enqueueReply' | 'enqueueForChat' | 'message' | 'outboxIdOf' | 'messageRef'>;
    tasks: TaskStore;
  };
  mediaPolicy: MediaPolicy;
  /** The channel's splitter rules (core/chunk.ts channelRules), as the queue cuts its replies. */
  textRules(channel: ChannelName): ChunkRules;
  /** The socket this process answers `tools.call` on. */
  socket: string;
  /** This Node and agentwire's entry point (`…/cli/bin.js`); undefined: not built, no tools. */
  entry?: ToolsEntry;
  /**
   * The zone `chat_info` reports. A function is asked on first use only: asking the machine's zone
   * (Intl) maps ICU's zone data, about 5.5 MiB of the relay's resident memory (bench/startup).
   */
  timeZone: string | (() => string);
  now?: () => number;
  /** send_to_agent's links and store; absent: the tool refuses. */
  agents?: Omit<AgentLinks, 'stored'>;
  /**
   * Sockets of their own for sandboxed runs and processes: made in `dir` (0600), each answering
   * `tools.call` and `tools.list` with `methods` (the relay wires the control server); absent:
   * every run uses `socket`.
   */
  runSockets?: {
    dir: string;
    open(path: string, methods: ToolMethods): { close(): Promise<void> };
  };
  /** The user's own tools (tools.servers, tools.scripts); absent: none. */
  user?: UserTools;
}

/** What the tools socket answers: `tools.call`, and `tools.list` (the user's own tools). */
export interface ToolMethods {
  /** Throws ToolError with a sentence for the agent. */
  call(params: unknown): Promise<ToolAnswer>;
  list(params: unknown): Promise<{ tools: ListedTool[] }>;
}

export interface ToolHost extends ToolMethods {
  /** For the queue; undefined when the tools are off. */
  grantor: ToolGrantor | undefined;
  /** Starts sending a chat's outbox (the queue's deliverer, once it exists). */
  bindDelivery(kick: (chat: ChatKey) => void): void;
  /** Where ask_user puts its questions (the queue's interactions, once the queue exists). */
  bindAsk(ask: NonNullable<ToolDeps['ask']>): void;
  /** Called whenever a tool added or cancelled a task (the scheduler re-reads them). */
  onTasksChanged(listener: () => void): void;
  /** Called whenever send_to_agent stored a request (the events runner looks at once). */
  onEventsStored(listener: () => void): void;
  readonly tokens: ToolTokens;
  /** Stops the user's own servers (the process is stopping). */
  close(): Promise<void>;
}

function tokenIn(params: unknown): unknown {
  return params !== null && typeof params === 'object' ? (params as { token?: unknown }).token : undefined;
}

export function createToolHost(o: ToolHostOptions): ToolHost {
  const now = o.now ?? Date.now;
  const tokens = new ToolTokens(now);
  let kick: (chat: ChatKey) => void = () => undefined;
  const listeners: (() => void)[] = [];
  const eventListeners: (() => void)[] = [];
  const zone = o.timeZone;
  let timeZone = typeof zone === 'string' ? zone : undefined;
  const deps: ToolDeps = {
    tokens,
    limits: o.limits,
    targets: o.targets ?? {},
    send: toolSender({
      store: o.store.queue,
      mediaPolicy: o.mediaPolicy,
      textRules: o.textRules,
      kick: (chat) => kick(chat),
      now,
    }),
    change: toolChanger({ store: o.store.queue, kick: (chat) => kick(chat), now }),
    messages: {
      ref: (ref) => o.store.queue.messageRef(ref),
      textLimit: (channel) => o.textRules(channel).limit ?? Number.POSITIVE_INFINITY,
    },
    tasks: o.store.tasks,
    tasksChanged: () => {
      for (const l of listeners) l();
    },
    sender: async (runKey) => {
      const m = /^in:(\d+)$/.exec(runKey);
      const row = m ? await o.store.queue.message(Number(m[1])) : undefined;
      return row ? { name: row.senderName, id: row.senderId, isGroup: row.isGroup } : undefined;
    },
    get timeZone() {
      timeZone ??= typeof zone === 'string' ? zone : zone();
      return timeZone;
    },
    now,
    ...(o.user && { user: o.user }),
    ...(o.agents && {
      agents: {
        ...o.agents,
        stored: () => {
          for (const l of eventListeners) l();
        },
      },
    }),
  };
  let ask: ToolDeps['ask'];
  const call = (params: unknown) => callTool(ask ? { ...deps, ask } : deps, params);
  const list = async (params: unknown) => {
    const p = toolListParams.safeParse(params);
    if (!p.success || !tokens.known(p.data.token)) throw new ToolError(TOKEN_INVALID);
    return { tools: o.user ? await o.user.list() : [] };
  };
  const rs = o.runSockets;
  // Checked before the call: a token not minted for this socket is refused like an unknown one.
  const ownSocket = rs
    ? (token: string) => {
        const path = join(rs.dir, `${randomBytes(8).toString('hex')}.sock`);
        const mine = <T>(params: unknown, then: (params: unknown) => Promise<T>) =>
          tokenIn(params) === token ? then(params) : Promise.reject(new ToolError(TOKEN_INVALID));
        const server = rs.open(path, {
          call: (params) => mine(params, call),
          list: (params) => mine(params, list),
        });
        return { path, close: () => void server.close() };
      }
    : undefined;
  return {
    grantor:
      o.enabled && o.entry
        ? toolGrantor({
            tokens,
            socket: o.socket,
            ...o.entry,
            ...(ownSocket && { ownSocket }),
            userTools: o.user?.configured ?? false,
          })
        : undefined,
    call,
    list,
    bindAsk: (a) => {
      ask = a;
    },
    bindDelivery: (k) => {
      kick = k;
    },
    onTasksChanged: (l) => listeners.push(l),
    onEventsStored: (l) => eventListeners.push(l),
    tokens,
    close: async () => {
      await o.user?.close();
    },
  };
}
