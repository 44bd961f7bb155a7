// The user's own tools (tools.servers, tools.scripts) in the process that runs agents: listed under
// namespaced names for `agentwire mcp` to offer beside ours, and called for a run under that run's
// permission policy (user-policy.ts). Each server's and script's environment is its own: never the
// agent's, and every value registered as a secret so no log line shows it. Errors are values: the
// caller (handlers.ts) turns one into the sentence the agent reads.

import { buildAgentEnv } from '../agents/resolve.js';
import type { Approver, PermissionPolicy } from '../agents/types.js';
import type { UserScriptConfig, UserServerConfig } from '../config/schema-user-tools.js';
import { type Logger, registerCredential, registerSecret, SECRET_ENV_NAME } from '../log.js';
import type { Launcher } from '../runner/launcher/client.js';
import type { GroupGuard } from '../runner/spawn-stdio.js';
import type { UserServer } from './user-client.js';
import {
  capText,
  contentText,
  decideCall,
  listable,
  parseUserToolName,
  type UserToolRef,
  userToolName,
} from './user-policy.js';
import { type UserScript, userScript } from './user-scripts.js';

export interface ListedTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** Who may allow a call: the run's permission policy and, under `ask`, its Approver. */
export interface CallPermission {
  policy?: PermissionPolicy | undefined;
  approve?: Approver | undefined;
}

export type UserCallResult = { ok: true; text: string } | { ok: false; error: string };

export interface UserTools {
  /** Whether any user tool is configured (a run's CLI then allows every tool of our server). */
  readonly configured: boolean;
  list(): Promise<ListedTool[]>;
  call(name: string, args: Record<string, unknown>, permission: CallPermission): Promise<UserCallResult>;
  close(): Promise<void>;
}

export interface UserToolsOptions {
  servers: Readonly<Record<string, UserServerConfig>>;
  scripts: Readonly<Record<string, UserScriptConfig>>;
  /** The relay's environment: only the base names (PATH, HOME…) are taken from it, as for an agent. */
  from: NodeJS.ProcessEnv;
  log: Logger;
  guard?: GroupGuard;
  /** The relay's launcher: scripts and stdio servers start from it, as the agents do. */
  launcher?: Launcher;
  /** How long a listing waits for a server (default LIST_WAIT_MS). */
  listWaitMs?: number;
}

/** Below `agentwire mcp`'s wait for the whole list (cli/tool-call.ts). */
export const LIST_WAIT_MS = 6000;

/** Every value of a server's env and headers is a secret; credential-named ones are masked in replies too. */
function registerValues(values: Readonly<Record<string, string>> | undefined, credentials: boolean): void {
  for (const [name, value] of Object.entries(values ?? {}))
    if (credentials || SECRET_ENV_NAME.test(name)) registerCredential(value);
    else registerSecret(value);
}

export function createUserTools(o: UserToolsOptions): UserTools {
  const listWaitMs = o.listWaitMs ?? LIST_WAIT_MS;
  const envOf = (own: Readonly<Record<string, string>> | undefined) =>
    buildAgentEnv({ passEnv: [] }, { ...own }, o.from);
  const scripts = new Map<string, UserScript>();
  for (const [name, cfg] of Object.entries(o.scripts)) {
    registerValues(cfg.env, false);
    scripts.set(name, userScript(name, cfg, envOf(cfg.env), o.launcher));
  }
  for (const cfg of Object.values(o.servers)) {
    registerValues(cfg.env, false);
    registerValues(cfg.headers, true);
  }
  // The MCP client is loaded with the first server used (user-client.ts says why).
  const servers = new Map<string, Promise<UserServer>>();
  const server = (name: string): Promise<UserServer> | undefined => {
    const cfg = o.servers[name];
    if (!cfg || !Object.hasOwn(o.servers, name)) return undefined;
    let s = servers.get(name);
    if (!s) {
      s = import('./user-client.js').then(
        ({ UserServer }) =>
          new UserServer(name, cfg, {
            env: envOf(cfg.env),
            log: o.log,
            ...(o.guard && { guard: o.guard }),
            ...(o.launcher && { launcher: o.launcher }),
          }),
      );
      servers.set(name, s);
    }
    return s;
  };

  const listServer = async (name: string): Promise<ListedTool[]> => {
    try {
      const tools = await (await (server(name) as Promise<UserServer>)).tools();
      const odd = tools.filter((t) => !listable(name, t.name)).length;
      if (odd > 0)
        o.log.warn(
          { server: name, count: odd },
          'user MCP server tools left out: names not valid tool names',
        );
      return tools
        .filter((t) => listable(name, t.name))
        .map((t) => ({
          name: userToolName({ type: 'server', server: name, tool: t.name }),
          description: t.description,
          inputSchema: t.inputSchema,
        }));
    } catch (err) {
      // One server that does not start leaves the others (and ours) listed.
      o.log.warn({ server: name, err: (err as Error).message }, 'user MCP server not listed');
      return [];
    }
  };

  const safeOf = (ref: UserToolRef): boolean =>
    ref.type === 'server'
      ? (o.servers[ref.server]?.safe.includes(ref.tool) ?? false)
      : (scripts.get(ref.script)?.config.safe ?? false);

  const permitted = async (name: string, ref: UserToolRef, args: unknown, p: CallPermission) => {
    const d = decideCall(p.policy, safeOf(ref));
    switch (d.type) {
      case 'run':
        return undefined;
      case 'refuse':
        return `${name} was not run: ${d.reason}`;
      case 'ask': {
        if (!p.approve) return `${name} was not run: nobody can be asked about this run`;
        const toolKind = ref.type === 'server' ? `mcp:${ref.server}/${ref.tool}` : `script:${ref.script}`;
        const a = await p.approve(
          { toolKind, summary: `use ${name}: ${JSON.stringify(args)}` },
          new AbortController().signal,
        );
        return a.type === 'deny' ? `${name} was not run: ${a.reason}` : undefined;
      }
    }
  };

  const run = async (
    ref: UserToolRef,
    name: string,
    args: Record<string, unknown>,
  ): Promise<UserCallResult> => {
    if (ref.type === 'script') {
      const r = await (scripts.get(ref.script) as UserScript).run(args);
      return r.ok ? r : { ok: false, error: `${name}: ${r.error}` };
    }
    const s = await (server(ref.server) as Promise<UserServer>);
    try {
      const r = await s.call(ref.tool, args);
      const text = capText(contentText(r.content));
      return r.isError === true
        ? { ok: false, error: `${name}: ${text || 'the tool failed'}` }
        : { ok: true, text };
    } catch (err) {
      return {
        ok: false,
        error: `${name}: ${troubleText(ref.server, o.servers[ref.server]?.timeoutSeconds ?? 0, err)}`,
      };
    }
  };

  return {
    configured: Object.keys(o.servers).length + scripts.size > 0,
    async list() {
      // Bounded below `agentwire mcp`'s own wait (cli/tool-call.ts LIST_WAIT_MS): a server slow to
      // start is left out of this listing, and is listed by the next run's, once it has started.
      const bounded = (name: string) => {
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<ListedTool[]>((resolve) => {
          timer = setTimeout(() => {
            o.log.warn({ server: name }, 'user MCP server slow to list its tools; left out of this run');
            resolve([]);
          }, listWaitMs);
        });
        return Promise.race([listServer(name), late]).finally(() => clearTimeout(timer));
      };
      const fromServers = await Promise.all(Object.keys(o.servers).map(bounded));
      const fromScripts = [...scripts].map(([script, s]) => ({
        name: userToolName({ type: 'script', script }),
        description: s.config.description,
        inputSchema: s.config.schema,
      }));
      return [...fromServers.flat(), ...fromScripts];
    },
    async call(name, args, permission) {
      const ref = parseUserToolName(name);
      const known =
        ref && (ref.type === 'server' ? Object.hasOwn(o.servers, ref.server) : scripts.has(ref.script));
      if (!ref || !known) return { ok: false, error: `unknown tool ${name.slice(0, 64)}` };
      const refused = await permitted(name, ref, args, permission);
      if (refused) return { ok: false, error: refused };
      const r = await run(ref, name, args);
      o.log.debug({ tool: name, ok: r.ok }, 'user tool called');
      return r;
    },
    async close() {
      const all = [...servers.values()];
      servers.clear();
      await Promise.all(all.map(async (s) => (await s).close()));
    },
  };
}

const MAX_MESSAGE_MIB = 4;

/** Pure: the sentence for a call that failed on the way (the server's own errors come as results). */
export function troubleText(server: string, timeoutSeconds: number, err: unknown): string {
  const e = err as { code?: unknown; message?: unknown; name?: unknown };
  const message = typeof e?.message === 'string' ? e.message : String(err);
  // The SDK's RequestTimeout (-32001): the call is cancelled; the server keeps running.
  if (e?.code === -32001)
    return `the server ${server} did not answer within ${timeoutSeconds} s; the call was given up`;
  if (e?.name === 'ServerTrouble') return `the server ${server} is not available: ${message}`;
  if (/more than \d+ bytes/.test(message))
    return `the server ${server} sent more than ${MAX_MESSAGE_MIB} MiB in one answer; the call was given up`;
  if (/Connection closed|stopped|exceeded maximum size/.test(message))
    return `the server ${server} stopped during the call (${message.slice(0, 160)}); it is started again on the next call`;
  return `the call to the server ${server} failed: ${message.slice(0, 200)}`;
}
