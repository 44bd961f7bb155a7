// The Slack section of the config schema (src/config/schema.ts composes it). Ids are Slack's own:
// users `U…`/`W…`, conversations `C…` (public), `G…` (private), `D…` (direct), workspaces `T…`.
// Display names and #channel-names are never accepted: they can be renamed or taken over.
import { z } from 'zod';
import { dmField } from './schema-access.js';
import { progressFields } from './schema-progress.js';
import { httpsUnlessLoopback, isRegExp } from './schema-refine.js';

const userId = z
  .string()
  .trim()
  .refine((v) => v === '*' || /^[UW][A-Z0-9]{2,20}$/.test(v), {
    message:
      'must be a Slack user id like U0123ABCD (profile → ⋮ → Copy member ID), never a display name; the relay logs the id of a dropped sender',
  });
const channelId = z
  .string()
  .trim()
  .refine((v) => v === '*' || /^[CG][A-Z0-9]{2,20}$/.test(v), {
    message: 'must be a Slack channel id like C0123ABCD (channel details → About), never a #name',
  });
const userList = z.union([z.literal('*'), z.array(userId)]);
const channelList = z.union([z.literal('*'), z.array(channelId)]);

export const slackSchema = z
  .object({
    enabled: z
      .boolean()
      .default(false)
      .describe('The Slack channel (a Slack app: Socket Mode by default, or the Events API over HTTP).'),
    botToken: z
      .string()
      .regex(/^xoxb-[A-Za-z0-9-]{10,250}$/, 'must be a bot token starting with xoxb- (OAuth & Permissions)')
      .optional()
      .describe('The bot token (xoxb-…). Default: $SLACK_BOT_TOKEN. Secret.'),
    appToken: z
      .string()
      .regex(
        /^xapp-[A-Za-z0-9-]{10,250}$/,
        'must be an app-level token starting with xapp- (Basic Information)',
      )
      .optional()
      .describe(
        'The app-level token (xapp-…, scope connections:write) for Socket Mode. Default: $SLACK_APP_TOKEN. Secret.',
      ),
    signingSecret: z
      .string()
      .regex(/^[A-Za-z0-9]{16,128}$/, 'must be the signing secret from Basic Information (hex characters)')
      .optional()
      .describe('The signing secret, for mode "http". Default: $SLACK_SIGNING_SECRET. Secret.'),
    mode: z
      .enum(['socket', 'http'])
      .default('socket')
      .describe(
        'socket: Slack is reached over a WebSocket (no public URL). http: Slack posts events to `http`.',
      ),
    http: z
      .object({
        host: z.string().default('127.0.0.1').describe('Address the events server binds to.'),
        port: z.number().int().min(0).max(65_535).default(8789).describe('Events server port.'),
        path: z.string().startsWith('/').default('/slack/events').describe('Events path (the Request URL).'),
      })
      .strict()
      .prefault({})
      .describe('The Events API server (mode "http"), behind your https reverse proxy.'),
    teamId: z
      .string()
      .regex(/^T[A-Z0-9]{2,20}$/, 'must be a workspace id like T0123ABCD')
      .optional()
      .describe(
        'The workspace the app must belong to (checked at start and on every event). Default: the token’s own.',
      ),
    dm: dmField,
    allowFrom: userList
      .default([])
      .describe('Slack user ids allowed to talk to the bot in direct messages, or "*". Default: nobody.'),
    channels: channelList
      .default([])
      .describe('Channel ids (C…/G…) the bot answers in when mentioned, or "*". Default: none.'),
    channelAllowFrom: userList
      .optional()
      .describe('User ids who may trigger a run inside an allowed channel. Default: `allowFrom`.'),
    channelAlways: z
      .array(channelId)
      .default([])
      .describe('Channels where every message triggers a run, not only mentions and threads the bot is in.'),
    mentionPatterns: z
      .array(z.string().refine(isRegExp, 'not a valid regular expression'))
      .default([])
      .describe('Regular expressions that count as a mention in channels, besides @bot.'),
    threadSessions: z
      .boolean()
      .default(false)
      .describe('One session per thread (the chat id holds the thread ts) instead of one per channel or DM.'),
    apiUrl: z
      .string()
      .url()
      .refine(httpsUnlessLoopback, 'must be https (plain http only to 127.0.0.1, ::1 or localhost)')
      .optional()
      .describe('The Web API root (tests). Default: https://slack.com/api/.'),
    ...progressFields,
  })
  .strict();
