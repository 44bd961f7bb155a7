// One strict schema for the whole config. Every key has a safe default, so `{}` (no file) is valid.
// `.describe()` texts are the doc comments: config.example.json5 and docs/configuration.md follow them,
// and a test keeps the example complete against this schema.
import { z } from 'zod';
import { accessSchema } from './schema-access.js';
import { permissionProblems, permissionsField } from './schema-agent-permissions.js';
import { agentListProblems, namedAgentSchema, routesSchema, workspaceFields } from './schema-agents-list.js';
import { discordSchema, telegramSchema, twilioSchema, whatsappSchema } from './schema-channels.js';
import { heartbeatSchema, type scheduleSchema, schedulesSchema } from './schema-checkins.js';
import { commandsSchema } from './schema-commands.js';
import { eventsSchema, hooksSchema, targetsSchema } from './schema-events.js';
import { consoleSchema, logSchema, retentionSchema } from './schema-ops.js';
import { permissionsSchema } from './schema-permissions.js';
import { agentKind, DEFAULT_AGENT_KIND } from './schema-refine.js';
import { sendToProblems, sendToSchema } from './schema-send-to.js';
import { slackSchema } from './schema-slack.js';
import { storeSchema } from './schema-store.js';
import { userToolsFields } from './schema-user-tools.js';
import { acpProblems, warmSchema } from './schema-warm.js';

const agentFields = {
  command: z
    .array(z.string().min(1))
    .min(1)
    .optional()
    .describe(
      "The program and any fixed leading arguments (argv, no shell). Default: the kind's program on PATH.",
    ),
  cwd: z.string().optional().describe("The agent's working folder. Default: <state folder>/workspace."),
  timeoutSeconds: z
    .number()
    .int()
    .positive()
    .max(86_400)
    .default(600)
    .describe('A run is killed after this long.'),
  env: z
    .record(z.string(), z.string())
    .default({})
    .describe('Extra environment for the CLI ("${VAR}" allowed).'),
  model: z.string().optional().describe("Model name passed with the CLI's model flag."),
  thinking: z.string().optional().describe('Thinking / reasoning level, where the CLI has one.'),
  systemText: z.string().optional().describe('Identity text given to CLIs that accept a system prompt.'),
  mode: z
    .enum(['warm', 'cold'])
    .optional()
    .describe(
      'warm: one live process per chat, turn after turn; cold: a new process per message. Default: warm (an agent with no one-shot mode runs warm only).',
    ),
  permissions: permissionsField,
  ...workspaceFields,
  sandbox: z
    .enum(['none', 'bwrap'])
    .optional()
    .describe(
      "bwrap: the CLI runs inside bubblewrap, seeing only its workspace, its own state folders and the system's programs, never the relay's files (docs/access.md). Default: none.",
    ),
};

export const agentSchema = z
  .object({
    kind: agentKind
      .default(DEFAULT_AGENT_KIND)
      .describe('Which CLI answers: one of the kinds in docs/agents.md.'),
    ...agentFields,
  })
  .strict();
// Per-kind overrides carry no defaults of their own: an unset key falls back to `agent` (cwd,
// timeoutSeconds, systemText; env is merged), so `agents.codex: {model: 'x'}` keeps agent's limits.
export const agentOverrideSchema = z
  .object({
    ...agentFields,
    timeoutSeconds: z
      .number()
      .int()
      .positive()
      .max(86_400)
      .optional()
      .describe('A run is killed after this long. Default: agent.timeoutSeconds.'),
    env: z
      .record(z.string(), z.string())
      .optional()
      .describe('Extra environment for this CLI, merged over agent.env ("${VAR}" allowed).'),
  })
  .strict();

const queueSchema = z
  .object({
    maxConcurrentRuns: z
      .number()
      .int()
      .min(1)
      .max(64)
      .default(4)
      .describe('At most this many agent runs at once.'),
    whileBusy: z
      .enum(['collect', 'followup', 'interrupt', 'steer'])
      .default('collect')
      .describe(
        'Messages that arrive during a run: collect into the next prompt, follow up one by one, interrupt, or steer (given to the running warm turn where the CLI can take it, else follow up).',
      ),
    maxPendingPerChat: z
      .number()
      .int()
      .min(1)
      .max(10_000)
      .default(20)
      .describe('Waiting messages per chat before new ones are refused.'),
    maxPromptChars: z
      .number()
      .int()
      .min(1000)
      .max(10_000_000)
      .default(100_000)
      .describe(
        'Longest prompt given to the agent; a message that alone is longer is refused, with a notice.',
      ),
    shutdownGraceSeconds: z
      .number()
      .int()
      .min(0)
      .max(3600)
      .default(10)
      .describe('On stop, how long running agents may finish.'),
    leaseSeconds: z
      .number()
      .int()
      .min(1)
      .max(600)
      .default(30)
      .describe(
        "How long a process's hold on a chat lasts without renewal (renewed every third of it): when processes share the state folder, a crashed or paused one's chats are taken over after this.",
      ),
  })
  .strict();

// 24 h by default: longer than any provider incident on record (Twilio's status history shows hours,
// not days), and as long as WhatsApp's customer-service window, after which a free-form reply over
// Twilio WhatsApp fails anyway (63016). A reply a day late is rarely still wanted; the chat is told.
const deliverySchema = z
  .object({
    retryHours: z
      .number()
      .positive()
      .max(24 * 30)
      .default(24)
      .describe(
        'How long a reply that fails for a passing reason (provider down, 5xx, rate limit, timeout) is retried before it is given up; the chat is then told once.',
      ),
    maxRetryDelaySeconds: z
      .number()
      .min(1)
      .max(3600)
      .default(60)
      .describe('The longest wait between two tries of a failed reply (the backoff doubles up to it).'),
  })
  .strict();

const sessionsSchema = z
  .object({
    scope: z
      .enum(['per-chat', 'global'])
      .default('per-chat')
      .describe('One agent session per chat, or one shared by all chats.'),
    idleMinutes: z
      .number()
      .int()
      .min(0)
      .default(60)
      .describe('A session idle this long starts fresh (0: never expires).'),
  })
  .strict();

const mediaSchema = z
  .object({
    allowedRoots: z
      .array(z.string())
      .optional()
      .describe("Folders MEDIA: files may come from. Default: the agent's working folder."),
    maxInboundMb: z
      .number()
      .positive()
      .max(2048)
      .default(25)
      .describe('Inbound attachments larger than this are refused.'),
    maxOutboundMb: z
      .number()
      .positive()
      .max(2048)
      .default(25)
      .describe('Outbound attachments larger than this become a notice.'),
    allowUrls: z.boolean().default(true).describe('Whether MEDIA: may name public https URLs.'),
    transcribe: z
      .object({
        command: z
          .array(z.string())
          .min(1)
          .optional()
          .describe('argv template for voice notes, with {{path}}; its stdout becomes the text.'),
        timeoutSeconds: z.number().int().positive().default(120).describe('Transcription time limit.'),
      })
      .strict()
      .default({ timeoutSeconds: 120 }),
  })
  .strict();

const toolsSchema = z
  .object({
    enabled: z
      .boolean()
      .default(true)
      .describe(
        "Give each run agentwire's MCP tools (send_message, send_file, schedule_task…); docs/tools.md.",
      ),
    maxMessagesPerRun: z
      .number()
      .int()
      .min(0)
      .max(100)
      .default(10)
      .describe('Messages and files one run may send with send_message / send_file.'),
    maxTasksPerChat: z
      .number()
      .int()
      .min(0)
      .max(500)
      .default(20)
      .describe('Tasks an agent may keep scheduled in one chat.'),
    minTaskIntervalMinutes: z
      .number()
      .positive()
      .max(1440)
      .default(5)
      .describe("The shortest interval (every, or a cron's gap) of a task an agent schedules."),
    askTimeoutMinutes: z
      .number()
      .positive()
      .max(120)
      .default(10)
      .describe(
        'Minutes ask_user waits for the answer once the chat is shown the question; then the agent gets "no answer".',
      ),
    maxAgentHops: z
      .number()
      .int()
      .min(1)
      .max(10)
      .default(3)
      .describe(
        'How many send_to_agent hands one request may pass through (A to B is 1, B back to A is 2…); one more is refused, so a loop between agents ends.',
      ),
    ...userToolsFields,
    sendTo: sendToSchema,
  })
  .strict();

/**
 * `agents.<kind>`: one override per kind, any key (which kinds exist is the agent registry's
 * business, checked on load: config/agent-kinds.ts). Keys in the shape are settings that are not a
 * kind (`warm`: the pool of live agent processes); the kind check skips them.
 */
export const namedAgent = namedAgentSchema(agentOverrideSchema.shape);
export const agentsSchema = z
  .object({
    warm: warmSchema.default(warmSchema.parse({})),
    launcher: z
      .boolean()
      .default(true)
      .describe(
        'Start the agent CLIs (cold runs and warm processes) from a small launcher process forked at start, so a start does not hold the relay (docs/configuration.md). Default: true.',
      ),
    list: z
      .array(namedAgent)
      .default([])
      .describe(
        'Named agents, each with its CLI kind, folder, sessions and settings; routes bind chats to them (docs/access.md).',
      ),
  })
  .strict()
  .catchall(agentOverrideSchema.optional());

export const configSchema = z
  .object({
    agent: agentSchema.default({ kind: DEFAULT_AGENT_KIND, timeoutSeconds: 600, env: {} }),
    agents: agentsSchema
      // Parsed, so `warm` gets its defaults like any other section.
      .prefault({})
      .describe(
        'Per-kind settings for the other CLIs a chat may switch to with /agent, and `warm`: the pool of live agent processes.',
      ),
    routes: routesSchema,
    access: accessSchema
      .default(accessSchema.parse({}))
      .describe('Roles: owners and guests besides the allow-lists, and what guests may do (docs/access.md).'),
    queue: queueSchema.default(queueSchema.parse({})),
    delivery: deliverySchema.default(deliverySchema.parse({})),
    sessions: sessionsSchema.default(sessionsSchema.parse({})),
    commands: commandsSchema.default(commandsSchema.parse({})),
    media: mediaSchema.default(mediaSchema.parse({})),
    whatsapp: whatsappSchema.default(whatsappSchema.parse({})),
    twilio: twilioSchema.default(twilioSchema.parse({})),
    telegram: telegramSchema.default(telegramSchema.parse({})),
    slack: slackSchema.default(slackSchema.parse({})),
    discord: discordSchema.default(discordSchema.parse({})),
    heartbeat: heartbeatSchema.default({}),
    schedules: schedulesSchema,
    targets: targetsSchema,
    events: eventsSchema.default(eventsSchema.parse({})),
    hooks: hooksSchema,
    tools: toolsSchema.default(toolsSchema.parse({})),
    permissions: permissionsSchema
      .default(permissionsSchema.parse({}))
      .describe('Approvals from the phone: who answers them and how long they wait (docs/tools.md).'),
    console: consoleSchema.default(consoleSchema.parse({})),
    retention: retentionSchema.default(retentionSchema.parse({})),
    store: storeSchema.default(storeSchema.parse({})),
    log: logSchema.default(logSchema.parse({})),
  })
  // A heartbeat interval with no target and no channel offering a default chat is refused by
  // loadConfig's channel check (heartbeat/target.ts): which channels have one is theirs to say.
  .strict()
  .superRefine((c, ctx) => {
    for (const p of acpProblems(c.agent, c.agents.acp)) ctx.addIssue({ code: 'custom', ...p });
    for (const p of sendToProblems(c.targets, c.tools.sendTo)) ctx.addIssue({ code: 'custom', ...p });
    const list = c.agents.list;
    for (const p of agentListProblems({
      agent: c.agent,
      list,
      routes: c.routes,
      sessionsScope: c.sessions.scope,
    }))
      ctx.addIssue({ code: 'custom', ...p });
    for (const p of permissionProblems(c.agent, agentKindSettings(c.agents)))
      ctx.addIssue({ code: 'custom', ...p });
    // An empty list of approvers with an agent that asks: every request would wait out its
    // timeout and be denied, which is `deny` with a delay, surely not what was meant.
    const asks =
      c.agent.permissions === 'ask' || agentKindSettings(c.agents).some(([, o]) => o?.permissions === 'ask');
    if (asks && c.permissions.approvers?.length === 0)
      ctx.addIssue({
        code: 'custom',
        path: ['permissions', 'approvers'],
        message:
          "is empty, so nobody could answer an agent whose permissions are 'ask': list who may answer, leave the key out for the owner, or set permissions to 'deny'",
      });
  });

export type Config = z.infer<typeof configSchema>;

/** The per-kind settings under `agents` (not `agents.warm`), set or not, and every named agent. */
export function agentOverrides(agents: Config['agents']): (AgentOverride | undefined)[] {
  return [...agentKindSettings(agents).map(([, v]) => v), ...agents.list];
}

/** Each `agents.<kind>` entry with its kind: every key but the settings in the shape (`warm`). */
export function agentKindSettings(agents: Config['agents']): [string, AgentOverride | undefined][] {
  return Object.entries(agents)
    .filter(([k]) => !(k in agentsSchema.shape))
    .map(([k, v]) => [k, v as AgentOverride | undefined]);
}
export type AgentOverride = z.infer<typeof agentOverrideSchema>;
export type NamedAgent = z.infer<typeof namedAgent>;
export type AgentConfig = z.infer<typeof agentSchema>;
export type ScheduleConfig = z.infer<typeof scheduleSchema>;

/** Keys whose values are secrets: redacted in `config print`, logs and status. */
export const SECRET_PATHS: readonly string[] = [
  'store.url',
  'twilio.authToken',
  'twilio.apiSecret',
  'telegram.botToken',
  'telegram.webhook.secretToken',
  'slack.botToken',
  'slack.appToken',
  'slack.signingSecret',
  'discord.botToken',
  'agent.env',
  'agents.*.env',
  'agents.list.*.env',
  'hooks.*.secret',
  'tools.servers.*.env',
  'tools.servers.*.headers',
  'tools.scripts.*.env',
];
