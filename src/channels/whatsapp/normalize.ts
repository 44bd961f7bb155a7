// Pure: one Baileys upsert message → either a normalised inbound message or the reason it is ignored.
// Everything here is untrusted (the sender builds the protobuf): sizes, names and mime types are hints.
import {
  isJidBot,
  isJidBroadcast,
  isJidGroup,
  isJidMetaAI,
  isJidNewsletter,
  isJidStatusBroadcast,
  type MessageUpsertType,
  normalizeMessageContent,
  type proto,
  type WAMessage,
} from '@whiskeysockets/baileys';
import type { InboundMediaKind } from '../../core/types.js';
import { isOwnJid, type OwnIds } from './jid.js';
import { sharedContent } from './shared-content.js';

export type IgnoreReason =
  | 'invalid'
  | 'status'
  | 'broadcast'
  | 'newsletter'
  | 'bot'
  | 'own_message'
  | 'stale'
  | 'protocol'
  | 'reaction'
  | 'edit'
  | 'no_content'
  | 'unsupported';

export type MediaType = 'image' | 'video' | 'audio' | 'document' | 'sticker';

export interface MediaRef {
  kind: InboundMediaKind;
  mediaType: MediaType;
  mimeType: string;
  /** What the sender claims; never trusted for limits. */
  declaredBytes?: number;
  fileName?: string;
  content: proto.Message.IImageMessage &
    proto.Message.IVideoMessage &
    proto.Message.IAudioMessage &
    proto.Message.IDocumentMessage &
    proto.Message.IStickerMessage;
}

export interface NormalizedMessage {
  type: 'message';
  id: string;
  /** `key.remoteJid` exactly as received: replies go back here (A8: never a re-derived PN JID). */
  chatJid: string;
  chatJidAlt?: string;
  isGroup: boolean;
  selfChat: boolean;
  fromMe: boolean;
  senderJid: string;
  senderAlt?: string;
  pushName?: string;
  text: string;
  media?: MediaRef;
  mentions: string[];
  quoted?: { id?: string; participant?: string };
  at: number;
  /** Delivered as `append` (offline backlog), not live. */
  late: boolean;
}

export type Classified = NormalizedMessage | { type: 'ignore'; reason: IgnoreReason };

export interface NormalizeContext {
  own: OwnIds;
  now: number;
  /** `append` messages older than this are history, never a run… */
  offlineWindowMs: number;
  /**
   * …unless sent after this instant: the start of the link's last outage within this process (when
   * it was last heard before going down). WhatsApp replays what it queued during an outage as
   * `append`; an outage longer than the window (a silent link found by the watchdog after 30
   * minutes) must not lose its messages, and nothing from before it is new.
   */
  outageStart?: number;
}

/** Message timestamps are WhatsApp's clock, in whole seconds; ours may differ a little. */
export const CLOCK_SLACK_MS = 60_000;

/** Pure: whether a late (`append`) message is recent enough to run. */
export function lateIsCurrent(at: number | undefined, ctx: NormalizeContext): boolean {
  if (at === undefined) return false;
  if (ctx.now - at <= ctx.offlineWindowMs) return true;
  return ctx.outageStart !== undefined && at >= ctx.outageStart - CLOCK_SLACK_MS;
}

const ignore = (reason: IgnoreReason): Classified => ({ type: 'ignore', reason });

export function timestampMs(ts: WAMessage['messageTimestamp']): number | undefined {
  if (ts === null || ts === undefined) return undefined;
  const n = typeof ts === 'number' ? ts : typeof ts === 'object' ? ts.toNumber() : Number(ts);
  return Number.isFinite(n) && n > 0 ? n * 1000 : undefined;
}

export function classify(msg: WAMessage, upsert: MessageUpsertType, ctx: NormalizeContext): Classified {
  const key = msg.key;
  const chatJid = key?.remoteJid;
  if (!key?.id || !chatJid) return ignore('invalid');
  if (isJidStatusBroadcast(chatJid)) return ignore('status');
  if (isJidBroadcast(chatJid)) return ignore('broadcast');
  if (isJidNewsletter(chatJid)) return ignore('newsletter');
  if (isJidMetaAI(chatJid) || isJidBot(chatJid)) return ignore('bot');
  const isGroup = Boolean(isJidGroup(chatJid));
  const selfChat = !isGroup && (isOwnJid(chatJid, ctx.own) || isOwnJid(key.remoteJidAlt, ctx.own));
  const fromMe = Boolean(key.fromMe);
  // The owner writing to another person (or our replies there) is never a prompt. In a group it is
  // still part of the conversation: the gate keeps it as context (our own echoes it drops).
  if (fromMe && !selfChat && !isGroup) return ignore('own_message');
  const at = timestampMs(msg.messageTimestamp);
  const late = upsert === 'append';
  if (late && !lateIsCurrent(at, ctx)) return ignore('stale');

  const raw = msg.message;
  if (!raw) return ignore('no_content');
  // Checked before unwrapping (normalizeMessageContent unwraps edits and group status posts into
  // what looks like a fresh text) and after it (in a disappearing chat the same kinds come wrapped).
  const junk = junkReason(raw);
  if (junk) return ignore(junk);
  const content = normalizeMessageContent(raw);
  if (!content) return ignore('no_content');
  const inner = junkReason(content);
  if (inner) return ignore(inner);
  const body = extractBody(content);
  if (body.type === 'ignore') return body;
  if (!body.text.trim() && !body.media) return ignore('no_content');

  const ctxInfo = body.contextInfo;
  const senderJid = fromMe
    ? (ctx.own.pn ?? ctx.own.lid ?? chatJid)
    : isGroup
      ? (key.participant ?? '')
      : chatJid;
  if (!senderJid) return ignore('invalid');
  const senderAlt = fromMe ? undefined : ((isGroup ? key.participantAlt : key.remoteJidAlt) ?? undefined);
  const out: NormalizedMessage = {
    type: 'message',
    id: key.id,
    chatJid,
    isGroup,
    selfChat,
    fromMe,
    senderJid,
    text: body.text,
    mentions: (ctxInfo?.mentionedJid ?? []).filter((j): j is string => typeof j === 'string'),
    at: at ?? ctx.now,
    late,
  };
  if (key.remoteJidAlt) out.chatJidAlt = key.remoteJidAlt;
  if (senderAlt) out.senderAlt = senderAlt;
  if (msg.pushName) out.pushName = msg.pushName;
  if (body.media) out.media = body.media;
  if (ctxInfo?.stanzaId || ctxInfo?.participant) {
    out.quoted = {};
    if (ctxInfo.stanzaId) out.quoted.id = ctxInfo.stanzaId;
    if (ctxInfo.participant) out.quoted.participant = ctxInfo.participant;
  }
  return out;
}

function junkReason(m: proto.IMessage): IgnoreReason | undefined {
  if (m.protocolMessage) return 'protocol';
  if (m.reactionMessage || m.encReactionMessage) return 'reaction';
  if (m.editedMessage) return 'edit';
  if (m.groupStatusMessage || m.groupStatusMessageV2) return 'status';
  if (m.pollUpdateMessage || m.keepInChatMessage || m.pinInChatMessage) return 'protocol';
  return undefined;
}

type Body =
  | { type: 'body'; text: string; media?: MediaRef; contextInfo?: proto.IContextInfo | null }
  | { type: 'ignore'; reason: IgnoreReason };

function extractBody(c: proto.IMessage): Body {
  if (typeof c.conversation === 'string' && c.conversation) return { type: 'body', text: c.conversation };
  if (c.extendedTextMessage) {
    const e = c.extendedTextMessage;
    return { type: 'body', text: e.text ?? '', contextInfo: e.contextInfo };
  }
  const media = mediaOf(c);
  if (media) {
    return {
      type: 'body',
      text: media.content.caption ?? '',
      media,
      contextInfo: media.content.contextInfo,
    };
  }
  const shared = sharedContent(c);
  if (shared) return { type: 'body', text: shared.text, contextInfo: shared.contextInfo };
  if (c.senderKeyDistributionMessage || c.messageContextInfo) return { type: 'ignore', reason: 'no_content' };
  return { type: 'ignore', reason: 'unsupported' };
}

function mediaOf(c: proto.IMessage): MediaRef | undefined {
  const pick = (
    mediaType: MediaType,
    m: MediaRef['content'] | null | undefined,
    kind: (m: MediaRef['content']) => InboundMediaKind,
    fallbackMime: string,
  ): MediaRef | undefined => {
    if (!m) return undefined;
    const ref: MediaRef = { kind: kind(m), mediaType, mimeType: m.mimetype || fallbackMime, content: m };
    const len = m.fileLength === null || m.fileLength === undefined ? undefined : Number(m.fileLength);
    if (len !== undefined && Number.isFinite(len)) ref.declaredBytes = len;
    if (m.fileName) ref.fileName = m.fileName;
    return ref;
  };
  return (
    pick('image', c.imageMessage, () => 'image', 'image/jpeg') ??
    pick('video', c.videoMessage, () => 'video', 'video/mp4') ??
    // A round "video note" is its own field (ptvMessage), a VideoMessage with the same media keys.
    pick('video', c.ptvMessage, () => 'video', 'video/mp4') ??
    pick('audio', c.audioMessage, (m) => (m.ptt ? 'voice' : 'audio'), 'audio/ogg') ??
    pick('document', c.documentMessage, () => 'document', 'application/octet-stream') ??
    pick('sticker', c.stickerMessage, () => 'sticker', 'image/webp')
  );
}
