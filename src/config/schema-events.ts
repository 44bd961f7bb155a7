// Config sections `events`, `hooks` and `targets`: events from outside wake the agent (docs/events.md).
import { z } from 'zod';
import { parseChatKey } from '../core/types.js';
import { agentKind } from './schema-refine.js';

/** A hook's or target's name: it appears in a URL path (`/hooks/<name>`) and in event files. */
export const EVENT_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

const chatRef = z
  .string()
  .min(1)
  .describe('A chat key ("<channel>:<chat id>", as for heartbeat.target), or a name from `targets`.');

export const eventsSchema = z
  .object({
    enabled: z
      .boolean()
      .default(true)
      .describe('Run JSON files dropped in <state folder>/events/ (docs/events.md).'),
    maxFileBytes: z
      .number()
      .int()
      .min(256)
      .max(1_048_576)
      .default(65_536)
      .describe('An event file larger than this is rejected.'),
    rescanSeconds: z
      .number()
      .int()
      .min(1)
      .max(3600)
      .default(10)
      .describe('The folder is also read this often, in case a change notice was lost.'),
  })
  .strict();

const hookSchema = z
  .object({
    secret: z
      .string()
      .min(16, 'at least 16 characters')
      .describe('Shared secret: the HMAC key of X-Hub-Signature-256, or the bearer token. "${VAR}" allowed.'),
    chat: chatRef,
    prompt: z
      .string()
      .min(1)
      .describe('What the agent is asked; {event} is the X-GitHub-Event header. The body follows as data.'),
    session: z
      .enum(['chat', 'own', 'fresh'])
      .optional()
      .describe("Which session: 'chat' (default), 'own' (one for this hook) or 'fresh'."),
    agent: agentKind.optional().describe("Another CLI for this hook. Default: the chat's."),
    quiet: z.boolean().default(false).describe('The agent may answer HEARTBEAT_OK to send nothing.'),
    activeHours: z
      .boolean()
      .default(false)
      .describe("Wait for heartbeat.activeHours before running (the heartbeat's quiet hours)."),
    maxBodyBytes: z
      .number()
      .int()
      .min(1024)
      .max(10_485_760)
      .default(262_144)
      .describe('A larger body is refused with 413.'),
    bodyTimeoutSeconds: z
      .number()
      .int()
      .min(1)
      .max(300)
      .default(10)
      .describe('A body not received in this time is refused with 408.'),
  })
  .strict();

export type HookConfig = z.infer<typeof hookSchema>;

export const hooksSchema = z
  .record(z.string().regex(EVENT_NAME, 'letters, digits, - and _ (up to 64)'), hookSchema)
  .default({})
  .describe('HTTP triggers, POST /hooks/<name> on the web console server (docs/events.md).');

export const targetsSchema = z
  .record(
    z.string().regex(EVENT_NAME, 'letters, digits, - and _ (up to 64)'),
    z.string().refine((v) => parseChatKey(v.trim()) !== undefined, 'a chat key like "<channel>:<chat id>"'),
  )
  .default({})
  .describe(
    'Names for chats, usable where events and hooks name a chat, each a chat key "<channel>:<chat id>".',
  );
