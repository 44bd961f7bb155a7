// The tools `agentwire mcp` offers, as data: name, what the agent is told, and the zod input shape.
// The MCP server validates a call against the shape (the SDK answers a bad call with an error the
// agent reads); the relay checks the same shape again, since the control socket is a second door.
import { z } from 'zod';

export const sendMessageInput = {
  text: z.string().min(1).max(20_000).describe('The message, plain text (markdown is kept as typed).'),
  to: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe(
      "Another chat, by its name in agentwire's config (targets), where the config lets this chat write; never a number. Absent: this chat.",
    ),
};

const messageId = z
  .string()
  .min(1)
  .max(40)
  .describe(
    "agentwire's id of a message in this chat: out:<n> as send_message returned it, or chat_info's messageId (the message you answer).",
  );

export const editMessageInput = {
  messageId,
  text: z.string().min(1).max(20_000).describe('The new text of the message, replacing the old.'),
};

export const addReactionInput = {
  messageId,
  emoji: z.string().min(1).max(40).describe('Exactly one emoji, like 👍.'),
};

export const sendCardInput = {
  title: z.string().min(1).max(200).describe('A short title, shown first.'),
  body: z.string().max(3000).default('').describe('The text under the title.'),
  buttons: z
    .array(z.string().max(200))
    // The card's own cap (core/card.ts) is lower and answered with a sentence; this only bounds input.
    .max(100)
    .describe('The choices, at most 10 short labels. The person taps one (or types its number).'),
};

export const sendFileInput = {
  path: z
    .string()
    .min(1)
    .max(4096)
    .describe('A file to send: absolute, or relative to the working folder; or a public https URL.'),
  caption: z.string().max(4000).optional().describe('Text sent with the file.'),
};

export const scheduleTaskInput = {
  prompt: z
    .string()
    .min(1)
    .max(10_000)
    .describe('What you will be asked to do when the task fires (write it for your future self).'),
  cron: z.string().max(100).optional().describe('A 5-field cron expression, e.g. "0 9 * * 1-5".'),
  every: z.string().max(40).optional().describe('An interval, e.g. "30m", "2h", "1d".'),
  at: z
    .string()
    .max(40)
    .optional()
    .describe('One time, e.g. "2026-07-01T09:00" (in timeZone) or with Z / an offset.'),
  timeZone: z
    .string()
    .max(64)
    .optional()
    .describe('IANA zone for cron and at, e.g. "Europe/Paris". Default: the relay\'s zone.'),
};

export const cancelTaskInput = {
  id: z.string().min(1).max(40).describe('The id list_tasks or schedule_task gave.'),
};

export const taskIdInput = {
  id: z.string().min(1).max(40).describe("The task's id (its series id: the same for every firing)."),
};

export const updateTaskInput = {
  id: taskIdInput.id,
  prompt: scheduleTaskInput.prompt.optional(),
  cron: scheduleTaskInput.cron,
  every: scheduleTaskInput.every,
  at: scheduleTaskInput.at,
  timeZone: scheduleTaskInput.timeZone,
};

export const askUserInput = {
  question: z.string().min(1).max(2000).describe('The question, plain text: what you need to know to go on.'),
  choices: z
    .array(z.string().min(1).max(100))
    .max(9)
    .optional()
    .describe(
      'Up to 9 short answers to offer, shown numbered; the person may still answer in their own words.',
    ),
};

export const sendToAgentInput = {
  agent: z
    .string()
    .regex(/^[a-z][a-z0-9-]{0,31}$/, 'an agent name is lower-case letters, digits and -')
    .describe('The named agent to send to (one your config lets this agent reach).'),
  text: z.string().min(1).max(10_000).describe('What you ask or tell that agent, plain text.'),
};

export const noInput = {};

export const TOOLS = {
  send_message: {
    description:
      'Send a message to the person in this chat now, while you keep working (your final answer is sent anyway). Returns its id (out:<n>) for edit_message and add_reaction.',
    input: sendMessageInput,
  },
  send_card: {
    description:
      "Send this chat a card: a title, a body and up to 10 buttons. Where the channel has buttons the person taps one, elsewhere they get a numbered list; their choice comes back as the chat's next message (the button's label when tapped, the number when typed). Returns the card's id. Don't wait for it: end your turn.",
    input: sendCardInput,
  },
  edit_message: {
    description:
      'Replace the text of a message you sent in this chat, by the id send_message returned. Not every channel can (you are told so).',
    input: editMessageInput,
  },
  add_reaction: {
    description:
      "Put one emoji reaction on a message of this chat: one you sent (send_message's id) or the person's message you answer (chat_info's messageId). Not every channel can.",
    input: addReactionInput,
  },
  send_file: {
    description:
      'Send a file (or https URL) to this chat now, with an optional caption. The same rules as MEDIA: lines apply.',
    input: sendFileInput,
  },
  schedule_task: {
    description:
      'Schedule yourself to run later in this chat: give exactly one of cron, every or at. The prompt is what you will be asked then.',
    input: scheduleTaskInput,
  },
  list_tasks: { description: 'List the tasks scheduled in this chat.', input: noInput },
  cancel_task: { description: 'Cancel a task scheduled in this chat, by id.', input: cancelTaskInput },
  pause_task: {
    description: 'Pause a task of this chat, by id: it does not fire until resume_task.',
    input: taskIdInput,
  },
  resume_task: { description: 'Resume a paused task of this chat, by id.', input: taskIdInput },
  update_task: {
    description:
      'Change a task of this chat in place, by id: a new prompt, and/or new timing (one of cron, every or at, with timeZone). The id stays.',
    input: updateTaskInput,
  },
  ask_user: {
    description:
      'Ask the person in this chat a question and wait for their answer (their next message, or the choice they pick). Use it only when you cannot go on without them; it returns "no answer" if they do not reply in time.',
    input: askUserInput,
  },
  send_to_agent: {
    description:
      "Send a message to another named agent; it runs on it as a run of its own, later, and its answer goes to a chat (this one, or its owner's, as configured), not back to you. Only the pairs agentwire's config allows.",
    input: sendToAgentInput,
  },
  chat_info: {
    description: 'This chat: its channel, who is writing, the time zone, and whether it is a group.',
    input: noInput,
  },
} as const;

export type ToolName = keyof typeof TOOLS;
export const TOOL_NAMES = Object.keys(TOOLS) as ToolName[];

export const isToolName = (v: unknown): v is ToolName => typeof v === 'string' && Object.hasOwn(TOOLS, v);

/** The control method the MCP server calls for every tool: `{token, tool, args, issued}` → `{text}`. */
export const TOOLS_METHOD = 'tools.call';

export const toolCallParams = z
  .object({
    token: z.string().min(1).max(200),
    // Up to 64: a user's tool is `<server>__<tool>` (user-policy.ts).
    tool: z.string().min(1).max(64),
    args: z.record(z.string(), z.unknown()).default({}),
    /** When the CLI made the call: the system's monotonic clock in ns (cli/tool-call.ts callStamp). */
    issued: z
      .string()
      .regex(/^\d{1,20}$/)
      .optional(),
  })
  .strict();

export interface ToolAnswer {
  text: string;
}

/**
 * The control method `agentwire mcp` asks, once, for the user's own tools to list beside ours:
 * `{token}` → `{tools: [{name, description, inputSchema}]}` (tools/user-tools.ts).
 */
export const TOOLS_LIST_METHOD = 'tools.list';

export const toolListParams = z.object({ token: z.string().min(1).max(200) }).strict();
