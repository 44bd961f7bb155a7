// Named agents (`agents.list`) and the routes that bind chats to them (`routes`), with the checks
// across them. The per-agent keys are the same as `agents.<kind>` (schema.ts hands its shape in, so
// a key added there, such as a sandbox setting, is a key of every named agent too); docs/access.md.
import { posix } from 'node:path';
import { z } from 'zod';
import { unreachableRoutes } from '../core/routes.js';
import { AGENT_KIND_NAME, agentKind } from './schema-refine.js';

// The shape of a kind, so a check-in's `agent` (a kind or a name) has one shape.
const agentName = z
  .string()
  .regex(AGENT_KIND_NAME, 'an agent name is lower-case letters, digits and -, starting with a letter');

const profileSchema = z
  .object({
    permissions: z
      .enum(['ask', 'allow', 'deny'])
      .optional()
      .describe("How the run's permission questions are answered. Default: deny."),
    readOnly: z
      .boolean()
      .optional()
      .describe("The CLI's own read-only sandbox, where it has one (docs/access.md). Default: true."),
    networkTools: z
      .boolean()
      .optional()
      .describe(
        "The CLI's own web fetch and web search tools, where a flag or setting can turn them off (docs/access.md lists which CLIs). Default: false.",
      ),
  })
  .strict();

/** The per-agent keys every agent has (agent, agents.<kind>, agents.list[]). */
export const workspaceFields = {
  workspace: z
    .string()
    .min(1)
    .optional()
    .describe(
      "shared (one folder for every chat), per-chat (a private folder per chat under the agent's folder, created on first use), or a folder path (shared, as cwd). Default: shared.",
    ),
  cliHome: z
    .enum(['global', 'agent', 'chat'])
    .optional()
    .describe(
      "Where the CLI keeps its own config and sessions: global (yours, as when you run it), agent (a folder of this agent's), chat (one per chat; needs workspace per-chat). agent and chat need the CLI logged in there (docs/access.md). Default: global.",
    ),
  profiles: z
    .object({
      member: profileSchema.optional().describe("A member's runs. Default: permissions deny, read-only."),
      guest: profileSchema.optional().describe("A guest's runs. Default: permissions deny, read-only."),
    })
    .strict()
    .optional()
    .describe(
      "What the agent may do when a member or a guest (not an owner) asked: the owner's runs use the agent's own permissions.",
    ),
};

export const agentLinkSchema = z
  .object({
    agent: agentName.describe('A named agent (agents.list) this one may send_to_agent.'),
    replyTo: z
      .enum(['asker', 'owner'])
      .default('asker')
      .describe(
        "Where that agent's answer goes: asker (the chat whose run asked) or owner (that agent's ownerChat). Default: asker.",
      ),
  })
  .strict();

/** `agents.list[]`: the override shape plus a name and a required kind. */
export function namedAgentSchema<T extends z.ZodRawShape>(overrideShape: T) {
  return z
    .object({
      name: agentName.describe('What routes and /agent call it.'),
      kind: agentKind.describe('Which CLI runs it: one of the kinds in docs/agents.md.'),
      ...overrideShape,
      talksTo: z
        .array(agentLinkSchema)
        .optional()
        .describe('The agents this one may send_to_agent, and where each answer goes. Default: none.'),
      ownerChat: z
        .string()
        .min(1)
        .optional()
        .describe(
          "The chat of this agent's owner (a chat key or a name in targets): where its answers go when a link says replyTo owner.",
        ),
    })
    .strict();
}

export const routeSchema = z
  .object({
    channel: z.string().min(1).optional().describe("The channel's name. Unset: any."),
    chats: z
      .array(z.string().min(1))
      .optional()
      .describe('Chat ids as the channel gives them (+15551234567, a group JID…). Unset: any chat.'),
    group: z.boolean().optional().describe('true: groups only; false: direct chats only. Unset: both.'),
    agent: agentName.describe('The agent the chat starts with (a name in agents.list, or a kind).'),
    agents: z
      .array(agentName)
      .optional()
      .describe('Other agents /agent may switch these chats to. Default: none.'),
  })
  .strict();

export const routesSchema = z
  .array(routeSchema)
  .default([])
  .describe(
    'Which agent answers which chat; the first route that matches wins, a route with no condition matches all. Default: agent (as before).',
  );

type Issue = { path: (string | number)[]; message: string };

interface AgentLike {
  name: string;
  cwd?: string | undefined;
  workspace?: string | undefined;
  cliHome?: string | undefined;
}

/** A folder as written, for comparing two settings of it (`~/x/` and `~/x` are one folder). */
const folderKey = (p: string) => posix.normalize(p.replace(/\/+$/, '') || '/');

export function folderOf(a: {
  cwd?: string | undefined;
  workspace?: string | undefined;
}): string | undefined {
  if (a.workspace !== undefined && a.workspace !== 'shared' && a.workspace !== 'per-chat') return a.workspace;
  return a.cwd;
}

/** Checks across named agents, routes and sessions that the schema alone cannot say. */
export function agentListProblems(c: {
  agent: { cwd?: string | undefined; workspace?: string | undefined; cliHome?: string | undefined };
  list: readonly AgentLike[];
  routes: readonly { agent: string }[];
  sessionsScope: string;
}): Issue[] {
  const out: Issue[] = [];
  const seen = new Map<string, number>();
  c.list.forEach((a, i) => {
    const before = seen.get(a.name);
    if (before !== undefined)
      out.push({
        path: ['agents', 'list', i, 'name'],
        message: `"${a.name}" is already agents.list[${before}]`,
      });
    else seen.set(a.name, i);
    if (a.workspace !== undefined && a.cwd !== undefined && folderOf(a) !== a.cwd)
      out.push({
        path: ['agents', 'list', i, 'workspace'],
        message: 'names a folder and so does cwd: say the folder once',
      });
  });
  // Two agents in one shared folder read and write each other's files and memory file (CLAUDE.md,
  // AGENTS.md…): refused unless each chat has its own folder under it.
  const shared = new Map<string, string>();
  const legacy = folderOf(c.agent);
  if (legacy !== undefined && c.agent.workspace !== 'per-chat') shared.set(folderKey(legacy), 'agent');
  c.list.forEach((a, i) => {
    const dir = folderOf(a);
    if (dir === undefined || a.workspace === 'per-chat') return;
    const other = shared.get(folderKey(dir));
    if (other)
      out.push({
        path: ['agents', 'list', i, 'cwd'],
        message: `is also ${other}'s folder: two agents sharing one folder see each other's files and memory; give each its own, or set workspace to 'per-chat'`,
      });
    else shared.set(folderKey(dir), `agents.list[${i}] (${a.name})`);
  });
  const perChat = [
    ...(c.agent.workspace === 'per-chat' ? [['agent'] as (string | number)[]] : []),
    ...c.list.flatMap((a, i) => (a.workspace === 'per-chat' ? [['agents', 'list', i]] : [])),
  ];
  if (c.sessionsScope === 'global')
    for (const p of perChat)
      out.push({
        path: [...p, 'workspace'],
        message:
          "is 'per-chat', but sessions.scope is 'global' (one session for every chat cannot run in one chat's folder)",
      });
  const homes = [
    ...(c.agent.cliHome === 'chat' && c.agent.workspace !== 'per-chat' ? [['agent']] : []),
    ...c.list.flatMap((a, i) =>
      a.cliHome === 'chat' && a.workspace !== 'per-chat' ? [['agents', 'list', i]] : [],
    ),
  ];
  for (const p of homes)
    out.push({ path: [...p, 'cliHome'], message: "is 'chat', which needs workspace 'per-chat'" });
  for (const p of unreachableRoutes(c.routes as never))
    out.push({ path: ['routes', p.index], message: p.message });
  return out;
}

/** Route targets and agent names against the known kinds (the loader's check, config/agent-kinds.ts). */
export function agentNameProblems(
  list: readonly {
    name: string;
    kind: string;
    talksTo?: readonly { agent: string; replyTo: string }[] | undefined;
    ownerChat?: string | undefined;
  }[],
  routes: readonly { agent: string; agents?: readonly string[] | undefined }[],
  known: readonly string[],
): Issue[] {
  const out: Issue[] = [];
  const names = list.map((a) => a.name);
  list.forEach((a, i) => {
    if (known.includes(a.name))
      out.push({
        path: ['agents', 'list', i, 'name'],
        message: `"${a.name}" is the name of a CLI kind: pick another name, so /agent ${a.name} means one thing`,
      });
  });
  const valid = [...names, ...known];
  // send_to_agent reaches named agents only: a kind has no name of its own to be addressed by.
  list.forEach((a, i) => {
    for (const [j, link] of (a.talksTo ?? []).entries()) {
      const target = list.find((b) => b.name === link.agent);
      if (!target)
        out.push({
          path: ['agents', 'list', i, 'talksTo', j, 'agent'],
          message: `unknown agent "${link.agent}" (named agents: ${names.join(', ') || 'none'})`,
        });
      else if (link.replyTo === 'owner' && target.ownerChat === undefined)
        out.push({
          path: ['agents', 'list', i, 'talksTo', j, 'replyTo'],
          message: `is 'owner', but agent "${link.agent}" has no ownerChat to send its answer to`,
        });
    }
  });
  routes.forEach((r, i) => {
    for (const [j, name] of [r.agent, ...(r.agents ?? [])].entries())
      if (!valid.includes(name))
        out.push({
          path: j === 0 ? ['routes', i, 'agent'] : ['routes', i, 'agents', j - 1],
          message: `unknown agent "${name}" (named agents: ${names.join(', ') || 'none'}; kinds: ${known.join(', ')})`,
        });
  });
  return out;
}
