// The channels' sections of the config schema (WhatsApp, Twilio, Telegram, Discord; src/config/schema.ts composes them).
import { z } from 'zod';
import { dmField } from './schema-access.js';
import { progressFields } from './schema-progress.js';
import { httpsUnlessLoopback, isRegExp } from './schema-refine.js';

const e164 = z.string().regex(/^\+[1-9]\d{6,14}$/, 'must be an E.164 number like +15551234567');
const allowList = z
  .union([z.literal('*'), z.array(z.union([e164, z.literal('*')]))])
  .describe('E.164 numbers allowed to talk to the agent, or "*" for anyone');

export const whatsappSchema = z
  .object({
    enabled: z
      .boolean()
      .default(true)
      .describe('The WhatsApp Web channel (turn off if you only use Twilio).'),
    dm: dmField,
    ...progressFields,
    allowFrom: allowList
      .optional()
      .describe('Who may talk in direct chats. Default: only the linked number (self-chat).'),
    groups: z
      .union([z.literal('*'), z.array(z.string())])
      .default([])
      .describe('Group JIDs the agent listens in, or "*". Default: none.'),
    groupAllowFrom: allowList
      .optional()
      .describe('Who may trigger a run inside an allowed group. Default: any member of the group.'),
    groupAlways: z
      .array(z.string())
      .default([])
      .describe('Groups where every message triggers a run, not only mentions.'),
    mentionPatterns: z
      .array(z.string().refine(isRegExp, 'not a valid regular expression'))
      .default([])
      .describe('Regular expressions that count as a mention in groups.'),
    groupContextMessages: z
      .number()
      .int()
      .min(0)
      .max(200)
      .default(20)
      .describe('Recent non-triggering group messages kept as context.'),
    chunkChars: z
      .number()
      .int()
      .min(100)
      .max(65_000)
      .default(4000)
      .describe('Longest text of one WhatsApp message.'),
    typingIntervalSeconds: z
      .number()
      .int()
      .min(1)
      .max(60)
      .default(8)
      .describe('How often "typing…" is refreshed.'),
    readReceipts: z.boolean().default(true).describe('Send read receipts for messages that passed the gate.'),
    offlineWindowSeconds: z
      .number()
      .int()
      .min(0)
      .max(86_400)
      .default(300)
      .describe(
        'Messages delivered late (received while the relay was offline) still run when at most this old.',
      ),
    liveness: z
      .object({
        quietMinutes: z
          .number()
          .int()
          .min(0)
          .max(1440)
          .default(30)
          .describe(
            'Minutes without any event from WhatsApp before the link is checked with one query about this device (0 turns the check off).',
          ),
        alertAfterMinutes: z
          .number()
          .int()
          .min(1)
          .max(1440)
          .default(10)
          .describe(
            'Minutes WhatsApp may stay degraded or need a relink before one SMS goes to the owner through Twilio.',
          ),
        alertTo: e164
          .optional()
          .describe(
            "Where that SMS goes (E.164). Default: the linked WhatsApp number (the owner's phone in the self-chat set-up).",
          ),
      })
      .strict()
      .default({ quietMinutes: 30, alertAfterMinutes: 10 })
      .describe('The liveness watchdog and the alert by SMS (docs/whatsapp.md).'),
  })
  .strict();

export const twilioSchema = z
  .object({
    enabled: z.boolean().default(false).describe('The Twilio channel (SMS, MMS, WhatsApp through Twilio).'),
    ...progressFields,
    accountSid: z.string().optional().describe('Account SID. Default: $TWILIO_ACCOUNT_SID.'),
    authToken: z
      .string()
      .optional()
      .describe('Auth token, used to check webhook signatures. Default: $TWILIO_AUTH_TOKEN. Secret.'),
    apiKey: z
      .string()
      .optional()
      .describe('API key SID, instead of the auth token for REST calls. Default: $TWILIO_API_KEY.'),
    apiSecret: z.string().optional().describe('API key secret. Default: $TWILIO_API_SECRET. Secret.'),
    from: z.string().optional().describe('Sending number (E.164, or whatsapp:+…).'),
    messagingServiceSid: z.string().optional().describe('Messaging service SID, instead of `from`.'),
    apiBaseUrl: z
      .string()
      .url()
      .refine(httpsUnlessLoopback, 'must be https (plain http only to 127.0.0.1, ::1 or localhost)')
      .optional()
      .describe(
        "Twilio's REST base URL (for compatible providers and tests). Inbound media is only fetched from this origin or *.twilio.com.",
      ),
    mode: z
      .enum(['webhook', 'poll'])
      .default('webhook')
      .describe('Receive by webhook, or by polling when there is no public URL.'),
    pollSeconds: z.number().int().min(2).max(3600).default(10).describe('Poll interval in poll mode.'),
    dm: dmField,
    allowFrom: allowList
      .default([])
      .describe('Who may text the agent (E.164 or "*"; whatsapp: prefixes are ignored). Default: nobody.'),
    refusalText: z
      .string()
      .max(1600)
      .optional()
      .describe('One static reply to senders not allowed, at most once a day per sender. Default: silence.'),
    chunkChars: z
      .number()
      .int()
      .min(100)
      .max(1600)
      .default(1600)
      .describe(
        'Longest text of one Twilio message. 1,600 is the hard limit for SMS and WhatsApp through Twilio alike.',
      ),
    mediaTimeoutSeconds: z
      .number()
      .int()
      .min(1)
      .max(300)
      .default(30)
      .describe(
        "Time allowed to download one inbound message's attachments, just before its run (the webhook answers without waiting for them).",
      ),
    mediaBaseUrl: z
      .string()
      .url()
      .optional()
      .describe(
        'Public base URL that reaches <webhook.path>/media/ on this server, for outbound files. Default: <webhook.publicUrl>/media.',
      ),
    mediaUrlTtlSeconds: z
      .number()
      .int()
      .min(30)
      .max(86_400)
      .default(600)
      .describe('How long an outbound media URL stays valid.'),
    statusCallbacks: z
      .boolean()
      .default(false)
      .describe('Ask Twilio for delivery status callbacks (at <webhook.publicUrl>/status; needs publicUrl).'),
    webhook: z
      .object({
        host: z.string().default('0.0.0.0').describe('Address the webhook server binds to.'),
        port: z.number().int().min(0).max(65_535).default(8787).describe('Webhook port.'),
        path: z.string().startsWith('/').default('/twilio/inbound').describe('Webhook path.'),
        publicUrl: z
          .string()
          .url()
          .refine((u) => /^https?:\/\//i.test(u), 'must be an http(s) URL')
          .optional()
          .describe(
            'The exact URL set in the Twilio console, query included (behind a proxy or tunnel). Signatures are checked against it.',
          ),
        insecureSkipSignature: z
          .boolean()
          .default(false)
          .describe('Turn off signature checks. Never on the internet.'),
      })
      .strict()
      .default({ host: '0.0.0.0', port: 8787, path: '/twilio/inbound', insecureSkipSignature: false }),
  })
  .strict();

// Telegram identifies people by a numeric user id that never changes; a @username can be renamed or
// taken over by someone else, so it is refused as an identity with a hint where to find the id.
const telegramId = z
  .union([z.number().int(), z.string()])
  .transform((v) => String(v).trim())
  .refine((v) => v === '*' || /^-?\d{1,20}$/.test(v), {
    message:
      'must be a numeric Telegram id (usernames can change hands and are not accepted); the relay logs the id of a dropped sender, or ask @userinfobot',
  });
const telegramList = z.union([z.literal('*'), z.array(telegramId)]);

export const telegramSchema = z
  .object({
    enabled: z.boolean().default(false).describe('The Telegram bot channel (Bot API, through grammY).'),
    ...progressFields,
    botToken: z
      .string()
      .optional()
      .describe('The bot token from @BotFather. Default: $TELEGRAM_BOT_TOKEN, else `tokenFile`. Secret.'),
    tokenFile: z
      .string()
      .optional()
      .describe('A file holding the bot token (first line), instead of botToken.'),
    dm: dmField,
    allowFrom: telegramList
      .default([])
      .describe('Numeric user ids allowed to talk to the bot in private chats, or "*". Default: nobody.'),
    groups: telegramList
      .default([])
      .describe(
        'Numeric group ids (negative, e.g. -1001234567890) the bot answers in, or "*". Default: none.',
      ),
    groupAllowFrom: telegramList
      .optional()
      .describe('Numeric user ids who may trigger a run inside an allowed group. Default: `allowFrom`.'),
    groupAlways: z
      .array(telegramId)
      .default([])
      .describe('Groups where every message triggers a run, not only mentions and replies to the bot.'),
    mentionPatterns: z
      .array(z.string().refine(isRegExp, 'not a valid regular expression'))
      .default([])
      .describe('Regular expressions that count as a mention in groups, besides @botname.'),
    typingIntervalSeconds: z
      .number()
      .int()
      .min(1)
      .max(60)
      .default(4)
      .describe('How often "typing…" is sent while the agent works (Telegram shows it for about 5 s).'),
    apiRoot: z
      .string()
      .url()
      .refine(httpsUnlessLoopback, 'must be https (plain http only to 127.0.0.1, ::1 or localhost)')
      .optional()
      .describe('The Bot API server (a local Bot API server, or tests). Default: https://api.telegram.org.'),
    webhook: z
      .object({
        url: z
          .string()
          .url()
          .refine((u) => u.startsWith('https://'), 'must be an https URL (Telegram only calls https)')
          .describe('The public https URL Telegram posts updates to (reaching host:port/path here).'),
        host: z.string().default('127.0.0.1').describe('Address the webhook server binds to.'),
        port: z.number().int().min(0).max(65_535).default(8788).describe('Webhook port.'),
        path: z.string().startsWith('/').default('/telegram/webhook').describe('Webhook path.'),
        secretToken: z
          .string()
          .regex(/^[A-Za-z0-9_-]{16,256}$/, '16 to 256 characters of A-Z, a-z, 0-9, _ and -')
          .optional()
          .describe(
            'The X-Telegram-Bot-Api-Secret-Token every webhook call must carry. Default: derived from the bot token. Secret.',
          ),
      })
      .strict()
      .optional()
      .describe('Receive by webhook instead of long polling (the default).'),
  })
  .strict();

// Discord names people, guilds and channels by snowflakes (17 to 20 digits) that never change; a
// username or display name can, so neither is accepted as an identity.
const snowflake = z
  .union([z.number().int(), z.string()])
  .transform((v) => String(v).trim())
  .refine((v) => v === '*' || /^\d{17,20}$/.test(v), {
    message:
      'must be a Discord id (17 to 20 digits; Developer Mode → right-click → Copy ID), never a name: names change hands',
  });
const snowflakeList = z.union([z.literal('*'), z.array(snowflake)]);

export const discordSchema = z
  .object({
    enabled: z
      .boolean()
      .default(false)
      .describe('The Discord bot channel (gateway and REST, @discordjs/core).'),
    botToken: z
      .string()
      .optional()
      .describe(
        'The bot token (Developer Portal → Bot → Reset Token). Default: $DISCORD_BOT_TOKEN, else `tokenFile`. Secret.',
      ),
    tokenFile: z
      .string()
      .optional()
      .describe('A file holding the bot token (first line), instead of botToken.'),
    dm: dmField,
    allowFrom: snowflakeList
      .default([])
      .describe('User ids allowed to talk to the bot in direct messages, or "*". Default: nobody.'),
    guilds: snowflakeList
      .default([])
      .describe('Server (guild) ids whose channels the bot answers in, or "*". Default: none.'),
    groupAllowFrom: snowflakeList
      .optional()
      .describe('User ids who may trigger a run in an allowed server. Default: `allowFrom`.'),
    groupAlways: z
      .array(snowflake)
      .default([])
      .describe('Channel ids where every message triggers a run, not only mentions and replies to the bot.'),
    mentionPatterns: z
      .array(z.string().refine(isRegExp, 'not a valid regular expression'))
      .default([])
      .describe('Regular expressions that count as a mention in server channels, besides @bot.'),
    threadSessions: z
      .boolean()
      .default(false)
      .describe(
        "A thread is a chat (and a session) of its own. Default: a thread's messages join its parent channel's chat.",
      ),
    slashCommands: z
      .boolean()
      .default(false)
      .describe('Register the chat commands as Discord slash commands (plain `/text` works either way).'),
    typingIntervalSeconds: z
      .number()
      .int()
      .min(1)
      .max(60)
      .default(8)
      .describe('How often "typing…" is sent while the agent works (Discord shows it for about 10 s).'),
    apiRoot: z
      .string()
      .url()
      .refine(httpsUnlessLoopback, 'must be https (plain http only to 127.0.0.1, ::1 or localhost)')
      .optional()
      .describe('The REST API root (a proxy, or tests). Default: https://discord.com/api.'),
    ...progressFields,
  })
  .strict();
