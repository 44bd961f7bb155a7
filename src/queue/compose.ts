// Turns a finished run into the items the outbox will send: text chunks for the channel's limit,
// then the attachments the media policy approved. A refused attachment becomes a short notice,
// never a silent drop.
import type { AgentResult } from '../agents/types.js';
import type { ChunkRules } from '../core/chunk.js';
import { label } from '../core/prompt.js';
import { replyChunks, replyText } from '../core/reply.js';
import type { ChannelName, OutboundItem } from '../core/types.js';
import type { Logger } from '../log.js';
import type { MediaDecision, MediaItem, MediaPolicy } from './ports.js';

export interface ComposeInput {
  text: string;
  media: readonly string[];
  channel: ChannelName;
  cwd: string;
  /** The channel's splitter rules (its plug-in's textRules). */
  limit: number | ChunkRules;
  extraRoots?: readonly string[];
}

/** Refusal notices for the user; the reference is agent output, so it is flattened and shortened. */
export function refusalLines(refused: readonly Extract<MediaDecision, { type: 'refused' }>[]): string[] {
  return refused.map((r) => `(Attachment not sent: ${label(r.ref, 80)}: ${label(r.reason, 120)}.)`);
}

async function checkMedia(
  policy: MediaPolicy,
  refs: readonly string[],
  ctx: { cwd: string; channel: ChannelName; extraRoots?: readonly string[] },
  log: Logger,
): Promise<MediaDecision[]> {
  if (refs.length === 0) return [];
  try {
    return await policy(refs, ctx);
  } catch (err) {
    // A policy failure must not send anything unchecked; every reference is refused instead.
    log.error({ err }, 'media policy failed');
    return refs.map((ref) => ({ type: 'refused', ref, reason: 'the attachment check failed' }));
  }
}

/**
 * Attachments one reply may carry. Agent output is untrusted: thousands of MEDIA lines would mean
 * thousands of file and DNS checks and a flood of messages. The rest are named in one notice.
 */
export const MAX_ATTACHMENTS = 30;

/** Items for `text` plus `media` (raw references, checked here). */
export async function composeItems(
  policy: MediaPolicy,
  input: ComposeInput,
  log: Logger,
): Promise<OutboundItem[]> {
  const ctx = { cwd: input.cwd, channel: input.channel, extraRoots: input.extraRoots };
  const over = Math.max(0, input.media.length - MAX_ATTACHMENTS);
  if (over > 0)
    log.warn({ count: input.media.length }, 'too many attachments in one reply; the rest are not sent');
  const decisions = await checkMedia(policy, input.media.slice(0, MAX_ATTACHMENTS), ctx, log);
  const approved: MediaItem[] = [];
  const refused: Extract<MediaDecision, { type: 'refused' }>[] = [];
  // Raw references are unique already; two spellings of one file (`./a.png`, `a.png`, a symlink)
  // are caught here, on what the policy resolved them to, so nothing is sent twice.
  const targets = new Set<string>();
  for (const d of decisions) {
    if (d.type === 'refused') refused.push(d);
    else {
      const target = d.item.type === 'file' ? `file:${d.item.path}` : `url:${d.item.url}`;
      if (!targets.has(target)) approved.push(d.item);
      targets.add(target);
    }
  }
  if (refused.length > 0)
    log.warn({ count: refused.length }, 'agent attachments refused by the media policy');
  const tooMany =
    over > 0
      ? `(${over} more attachment${over > 1 ? 's' : ''} not sent: a reply may carry at most ${MAX_ATTACHMENTS}.)`
      : '';
  const text = [input.text.trim(), ...refusalLines(refused), tooMany].filter(Boolean).join('\n\n');
  const chunks = text ? replyChunks(text, input.limit) : [];
  return [...chunks.map((t): OutboundItem => ({ type: 'text', text: t })), ...approved];
}

/** Items answering a finished user run. */
export function composeRunReply(
  policy: MediaPolicy,
  r: AgentResult,
  opts: {
    agent: string;
    contextReset: boolean;
    moved?: boolean;
    channel: ChannelName;
    cwd: string;
    limit: number | ChunkRules;
  },
  log: Logger,
): Promise<OutboundItem[]> {
  const media = r.type === 'ok' ? r.media : [];
  const text = replyText(r, {
    agent: opts.agent,
    hasMedia: media.length > 0,
    contextReset: opts.contextReset,
    ...(opts.moved && { moved: true }),
  });
  return composeItems(policy, { text, media, channel: opts.channel, cwd: opts.cwd, limit: opts.limit }, log);
}
