// Pure: one Events API `message` event → the fields the gate and the inbound pipeline need, or why it
// is ignored. Only new messages from people count: edits, deletions, joins and every bot's messages
// (ours included) are not requests. Slack's text is escaped (`&amp;`, `&lt;`, `&gt;`) and carries
// its own link syntax (`<@U…>`, `<#C…|name>`, `<url|label>`); the agent reads plain text.
import { chatIdOf, isDirect } from './ids.js';

/** The part of a Slack file object we use (api.slack.com/types/file). */
export interface SlackFile {
  id?: string;
  name?: string;
  mimetype?: string;
  size?: number;
  mode?: string;
  url_private?: string;
  url_private_download?: string;
}

/** A `message` event as the Events API delivers it (api.slack.com/events/message). */
export interface SlackMessageEvent {
  type: string;
  subtype?: string;
  channel?: string;
  channel_type?: string;
  user?: string;
  bot_id?: string;
  text?: string;
  ts?: string;
  thread_ts?: string;
  parent_user_id?: string;
  client_msg_id?: string;
  files?: SlackFile[];
}

export interface Me {
  userId: string;
  teamId: string;
  name: string;
}

export interface FileRef {
  url: string;
  mimeType: string;
  name: string;
  sizeBytes?: number;
}

export interface NormalizedMessage {
  conversation: string;
  /** The chat: the conversation, or with thread sessions the thread in it. */
  chatId: string;
  isGroup: boolean;
  senderId: string;
  ts: string;
  /** Set for a reply in a thread (not for the thread's first message). */
  threadTs?: string;
  /** The thread this message belongs to or would start, for the bot's replies in it. */
  threadRoot: string;
  text: string;
  mentionsBot: boolean;
  /** The thread was started by the bot. */
  parentIsBot: boolean;
  files: FileRef[];
  /** Files over the size cap (declared by Slack), by name: the sender is told. */
  tooLarge: string[];
  at: number;
}

export type Classified = { type: 'message'; msg: NormalizedMessage } | { type: 'ignore'; reason: string };

/** Subtypes that are still a person's new message; every other one (edits, joins, bots) is not. */
const PERSON_SUBTYPES = new Set([undefined, 'file_share', 'thread_broadcast']);
const TS = /^\d{6,12}\.\d{6}$/;

export const unescapeSlack = (s: string): string =>
  s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** Slack's `<…>` tokens as plain words, and the leading @bot mention dropped (it is not what was said). */
export function plainText(raw: string, botUserId: string): string {
  const lead = new RegExp(`^\\s*<@${botUserId}(?:\\|[^>]*)?>[\\s,:]*`);
  const text = raw.replace(lead, '').replace(/<([^<>]*)>/g, (_m, inner: string) => {
    const [target = '', label] = inner.split('|', 2);
    if (target.startsWith('@')) return label ? `@${label}` : target;
    if (target.startsWith('#')) return label ? `#${label}` : target;
    if (target.startsWith('!')) return `@${label ?? target.slice(1).split('^')[0]}`;
    return label && label !== target ? `${label} (${target})` : target;
  });
  return unescapeSlack(text);
}

export function classify(
  ev: SlackMessageEvent,
  me: Me,
  threadSessions: boolean,
  maxBytes: number,
): Classified {
  if (ev.type !== 'message') return { type: 'ignore', reason: 'not_a_message' };
  if (!PERSON_SUBTYPES.has(ev.subtype)) return { type: 'ignore', reason: `subtype_${ev.subtype}` };
  if (ev.bot_id) return { type: 'ignore', reason: 'from_a_bot' };
  if (!ev.user) return { type: 'ignore', reason: 'no_sender' };
  if (ev.user === me.userId) return { type: 'ignore', reason: 'own_message' };
  if (!ev.channel || !ev.ts || !TS.test(ev.ts)) return { type: 'ignore', reason: 'malformed' };
  const raw = ev.text ?? '';
  const files: FileRef[] = [];
  const tooLarge: string[] = [];
  for (const f of ev.files ?? []) {
    const url = f.url_private_download ?? f.url_private;
    // A file of another workspace shown by link, or one deleted since: nothing to download.
    if (!url || f.mode === 'external' || f.mode === 'tombstone') continue;
    const name = f.name ?? 'file';
    if (typeof f.size === 'number' && f.size > maxBytes) tooLarge.push(name);
    else
      files.push({
        url,
        name,
        mimeType: f.mimetype ?? 'application/octet-stream',
        ...(typeof f.size === 'number' && { sizeBytes: f.size }),
      });
  }
  if (!raw.trim() && files.length === 0 && tooLarge.length === 0)
    return { type: 'ignore', reason: 'no_content' };
  const isGroup = !isDirect(ev.channel);
  const reply = ev.thread_ts && ev.thread_ts !== ev.ts && TS.test(ev.thread_ts) ? ev.thread_ts : undefined;
  const threadRoot = reply ?? ev.ts;
  // One session per thread: in a channel every top-level message starts one (the reply goes under it);
  // in a DM the conversation itself is the session until someone replies in a thread.
  const threadTs = threadSessions ? (isGroup ? threadRoot : reply) : undefined;
  const mention = new RegExp(`<@${me.userId}(?:\\|[^>]*)?>`);
  return {
    type: 'message',
    msg: {
      conversation: ev.channel,
      chatId: chatIdOf({ conversation: ev.channel, ...(threadTs && { threadTs }) }),
      isGroup,
      senderId: ev.user,
      ts: ev.ts,
      ...(reply && { threadTs: reply }),
      threadRoot,
      text: plainText(raw, me.userId),
      mentionsBot: mention.test(raw),
      parentIsBot: ev.parent_user_id === me.userId,
      files,
      tooLarge,
      at: Math.round(Number(ev.ts) * 1000),
    },
  };
}
