// One user MCP server (tools.servers.<name>) as the relay holds it: started on first use, one
// instance for every chat, started again on the next use after it died. Spoken to with the SDK's
// client, over a child of the runner's (stdio) or the SDK's streamable HTTP transport. Loaded only
// when the config has a server: the MCP library costs the relay start-up time and memory otherwise
// (as `agentwire mcp`'s own server, cli/mcp-command.ts).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { UserServerConfig } from '../config/schema-user-tools.js';
import type { Logger } from '../log.js';
import type { Launcher } from '../runner/launcher/client.js';
import { type GroupGuard, startStdioChild } from '../runner/spawn-stdio.js';
import { VERSION } from '../version.js';
import { cappedFetch } from './user-fetch.js';
import { ChildTransport, MAX_MESSAGE_BYTES } from './user-stdio.js';

export interface ServerTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** A sentence the agent may read: why the server could not be used. */
export class ServerTrouble extends Error {
  override name = 'ServerTrouble';
}

export interface ServerDeps {
  /** The environment the stdio server starts with (the base names and its own `env`). */
  env: Record<string, string>;
  guard?: GroupGuard;
  /** The relay's launcher (`agents.launcher`): the server starts from it, as an agent does. */
  launcher?: Launcher;
  log: Logger;
}

export class UserServer {
  private client: Promise<Client> | undefined;
  private listed: ServerTool[] | undefined;
  /** Transports started and not yet closed, a starting one included: close() ends them at once. */
  private readonly open = new Set<Transport>();

  constructor(
    readonly name: string,
    private readonly cfg: UserServerConfig,
    private readonly deps: ServerDeps,
  ) {}

  private get timeoutMs(): number {
    return this.cfg.timeoutSeconds * 1000;
  }

  /** The server's tools, as it listed them on its first start (kept while it runs). */
  async tools(): Promise<ServerTool[]> {
    if (this.listed) return this.listed;
    const client = await this.connected();
    const r = await client.listTools(undefined, { timeout: this.timeoutMs });
    this.listed = r.tools.map((t) => ({
      name: t.name,
      description: t.description ?? '',
      inputSchema: t.inputSchema as Record<string, unknown>,
    }));
    return this.listed;
  }

  /** One call; rejects with the SDK's error (a timeout, the server gone) for the caller to word. */
  async call(tool: string, args: Record<string, unknown>): Promise<{ content?: unknown; isError?: unknown }> {
    const client = await this.connected();
    const r = await client.callTool({ name: tool, arguments: args }, undefined, { timeout: this.timeoutMs });
    return { content: r.content, isError: r.isError };
  }

  private connected(): Promise<Client> {
    if (!this.client) {
      const attempt = this.connect();
      this.client = attempt;
      // A start that failed is tried again on the next use, not remembered as the server.
      attempt.catch(() => {
        if (this.client === attempt) this.client = undefined;
      });
    }
    return this.client;
  }

  private async connect(): Promise<Client> {
    const transport = await this.transport();
    this.open.add(transport);
    const client = new Client({ name: 'agentwire', version: VERSION });
    const attempt = this.client;
    client.onclose = () => {
      this.open.delete(transport);
      // Died (or was stopped): the next use starts it again, and lists its tools again.
      if (this.client === attempt) this.client = undefined;
      this.listed = undefined;
      this.deps.log.warn({ server: this.name }, 'user MCP server closed');
      // Its stderr may quote what it was given (a chat's words): debug only, secrets masked there too.
      const why = transport instanceof ChildTransport ? transport.stderrTail() : '';
      if (why) this.deps.log.debug({ server: this.name, stderr: why }, 'user MCP server stderr');
    };
    // An error's text may quote what the server sent: debug only.
    client.onerror = (err) =>
      this.deps.log.debug({ server: this.name, err: err.message }, 'user MCP server error');
    try {
      await client.connect(transport, { timeout: this.timeoutMs });
    } catch (err) {
      this.open.delete(transport);
      await transport.close().catch(() => undefined);
      throw new ServerTrouble(`it did not start (${(err as Error).message.slice(0, 200)})`);
    }
    this.deps.log.info({ server: this.name }, 'user MCP server started');
    return client;
  }

  private async transport(): Promise<Transport> {
    if (this.cfg.url !== undefined) {
      return new StreamableHTTPClientTransport(new URL(this.cfg.url), {
        requestInit: { headers: { ...this.cfg.headers } },
        fetch: cappedFetch(MAX_MESSAGE_BYTES),
      });
    }
    const [file, ...args] = this.cfg.command ?? [];
    if (file === undefined) throw new ServerTrouble('it has no command');
    const started = await startStdioChild({
      file,
      args,
      env: this.deps.env,
      ...(this.cfg.cwd !== undefined && { cwd: this.cfg.cwd }),
      ...(this.deps.guard && { guard: this.deps.guard }),
      ...(this.deps.launcher && { launcher: this.deps.launcher }),
      maxStderrBytes: 8192,
    });
    switch (started.type) {
      case 'started':
        return new ChildTransport(started.child);
      case 'not_found':
        throw new ServerTrouble(`its program ${file} was not found`);
      case 'spawn_failed':
        throw new ServerTrouble(`it could not start (${started.message.slice(0, 200)})`);
    }
  }

  /** Stops the server (the relay is stopping). */
  async close(): Promise<void> {
    this.client = undefined;
    this.listed = undefined;
    // Not the client's close: a server still starting would be waited for (up to timeoutSeconds).
    const all = [...this.open];
    this.open.clear();
    await Promise.all(all.map((t) => t.close().catch(() => undefined)));
  }
}
