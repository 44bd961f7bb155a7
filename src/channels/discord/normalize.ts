// Pure: one MESSAGE_CREATE dispatch → the fields the gate and the inbound pipeline need, or why it is
// ignored. Only messages people wrote count: bots (ours included), webhooks and system messages
// (joins, pins, thread starts) are not requests. A message whose content arrives empty with no
// attachment is what Discord sends when the Message Content intent is off: said in the reason.
import type { GatewayMessageCreateDispatchData } from '@discordjs/core';
import type { InboundMediaKind } from '../../core/types.js';
import { mediaKindFor } from '../../media/inbound.js';

export interface Me {
  id: string;
  username: string;
}

/** An attachment Discord holds for us, on its CDN; downloaded (capped) before the message is stored. */
export interface AttachmentRef {
  kind: InboundMediaKind;
  url: string;
  sizeBytes: number;
  mimeType: string;
  fileName: string;
}

export interface NormalizedMessage {
  /** The message id (a snowflake, unique across Discord). */
  id: string;
  /** Where it was written: a DM channel, a server channel or a thread. */
  channelId: string;
  /** Absent in a direct message. */
  guildId?: string;
  /** The thread's parent channel, once known (inbound.ts asks Discord when thread sessions are off). */
  parentId?: string;
  senderId: string;
  senderName?: string;
  text: string;
  /** The message names the bot: `<@id>` in its text. */
  mentionsBot: boolean;
  /** The message answers one of the bot's own messages (Discord's reply, which needs no mention). */
  repliesToBot: boolean;
  attachments: AttachmentRef[];
  at: number;
  /** A slash command (an interaction), not a typed message. */
  slash?: true;
}

export type Classified = { type: 'message'; msg: NormalizedMessage } | { type: 'ignore'; reason: string };

/** Message types a person writes: DEFAULT (0) and REPLY (19); everything else is a system notice. */
const PERSON_TYPES = new Set([0, 19]);

const mentionOf = (id: string) => new RegExp(`<@!?${id}>`);

/**
 * `<@bot> /new rest` → `/new rest`: in a server a person addresses the bot by a mention, which is no
 * part of what they say (so a bare number still answers an approval, a command still parses).
 */
export function stripLeadingMention(text: string, me: Me): string {
  const m = new RegExp(`^\\s*<@!?${me.id}>[\\s,:]*`).exec(text);
  return m ? text.slice(m[0].length) : text;
}

export function classify(m: GatewayMessageCreateDispatchData, me: Me): Classified {
  if (m.author.id === me.id) return { type: 'ignore', reason: 'own_message' };
  if (m.author.bot || m.webhook_id) return { type: 'ignore', reason: 'from_a_bot' };
  if (!PERSON_TYPES.has(m.type)) return { type: 'ignore', reason: 'system_message' };
  const attachments: AttachmentRef[] = (m.attachments ?? []).map((a) => {
    const mimeType = a.content_type ?? 'application/octet-stream';
    return { kind: mediaKindFor(mimeType), url: a.url, sizeBytes: a.size, mimeType, fileName: a.filename };
  });
  const raw = m.content ?? '';
  if (!raw.trim() && attachments.length === 0) {
    return { type: 'ignore', reason: 'no_content (is the Message Content intent on?)' };
  }
  const name = m.author.global_name ?? m.author.username;
  return {
    type: 'message',
    msg: {
      id: m.id,
      channelId: m.channel_id,
      ...(m.guild_id && { guildId: m.guild_id }),
      senderId: m.author.id,
      ...(name && { senderName: name }),
      text: stripLeadingMention(raw, me),
      mentionsBot: mentionOf(me.id).test(raw),
      repliesToBot: m.referenced_message?.author?.id === me.id,
      attachments,
      at: Date.parse(m.timestamp) || Date.now(),
    },
  };
}
