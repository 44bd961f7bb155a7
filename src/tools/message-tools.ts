// send_card, edit_message and add_reaction: what a channel can do besides sending, decided from its
// plug-in's capabilities (channels/plugin.ts) and the pure rules (core/card.ts, message-policy.ts),
// then written to the outbox like a send (a durable row, keyed by the call's place in the run,
// fenced by the run's lease).
import { channelCapabilities } from '../channels/registry.js';
import { cardText, checkCard } from '../core/card.js';
import { type MessageRef, parseMessageRef } from '../core/message-ref.js';
import type { ChatKey, OutboundAction } from '../core/types.js';
import type { MessageRefRow } from '../store/contract/outbox.js';
import type { Fence } from '../store/ownership.js';
import { args, nextSendKey, sentLeft, ToolError, unsend, type Writer, writerOf } from './call-kit.js';
import { decideChange } from './message-policy.js';
import { addReactionInput, editMessageInput, sendCardInput, type ToolAnswer } from './schemas.js';
import type { ToolGrant } from './tokens.js';

/** What these tools need of the relay (a part of ToolDeps). */
export interface MessageToolDeps {
  limits: { maxMessagesPerRun: number };
  /**
   * Sends text and at most one raw media reference to the chat through the outbox, once per `key`,
   * under the same media policy as MEDIA: lines. A refused reference is returned, nothing is sent.
   */
  send(
    chat: ChatKey,
    key: string,
    text: string,
    media: readonly string[],
    cwd: string,
    writer: Writer,
  ): Promise<{ refused?: string; id?: string }>;
  /** Stores an edit, a reaction or a card (already checked) in the chat's outbox, once per `key`. */
  change(
    chat: ChatKey,
    key: string,
    action: OutboundAction,
    fence?: Fence,
  ): Promise<{ refused?: string; id?: string }>;
  /** The message agentwire's id names, and the longest text one message of a channel may be. */
  messages: {
    ref(ref: MessageRef): Promise<MessageRefRow | undefined>;
    textLimit(channel: string): number;
  };
}

const channelOf = (chat: ChatKey): string => chat.slice(0, chat.indexOf(':'));

export async function sendCard(deps: MessageToolDeps, g: ToolGrant, raw: unknown): Promise<ToolAnswer> {
  const a = args(sendCardInput, raw, 'send_card');
  const c = checkCard(a.title, a.body, a.buttons);
  if (!c.ok) throw new ToolError(`send_card: not sent: ${c.error}`);
  const max = deps.limits.maxMessagesPerRun;
  const key = nextSendKey(max, g, 'card');
  // Buttons where the channel has them; a numbered list, as any message, elsewhere.
  const r = channelCapabilities(channelOf(g.chat)).buttons
    ? await deps.change(g.chat, key, { type: 'card', card: c.card }, g.fence)
    : await deps.send(g.chat, key, cardText(c.card), [], g.cwd, writerOf(g));
  if (r.refused) {
    unsend(g);
    throw new ToolError(`send_card: not sent: ${r.refused}`);
  }
  return { text: `Sent the card${r.id ? ` as ${r.id}` : ''} (${sentLeft(max, g)}).` };
}

export async function changeMessage(
  deps: MessageToolDeps,
  g: ToolGrant,
  tool: 'edit_message' | 'add_reaction',
  raw: unknown,
): Promise<ToolAnswer> {
  const edit = tool === 'edit_message';
  const a = edit
    ? { ...args(editMessageInput, raw, tool), emoji: undefined }
    : { ...args(addReactionInput, raw, tool), text: undefined };
  const channel = channelOf(g.chat);
  const caps = channelCapabilities(channel);
  const capable = edit ? caps.edit : caps.react;
  const ref = parseMessageRef(a.messageId);
  const row = ref && capable ? await deps.messages.ref(ref) : undefined;
  const d = decideChange({
    kind: edit ? 'edit' : 'react',
    ref: a.messageId,
    parsed: ref !== undefined,
    row,
    chat: g.chat,
    capable,
    ...(edit ? { text: a.text, textLimit: deps.messages.textLimit(channel) } : { emoji: a.emoji }),
  });
  if (!d.ok) throw new ToolError(`${tool}: ${d.error}`);
  const target = a.messageId.trim();
  const action: OutboundAction = edit
    ? { type: 'edit', ref: target, text: a.text ?? '' }
    : { type: 'react', ref: target, emoji: a.emoji ?? '' };
  const max = deps.limits.maxMessagesPerRun;
  const key = nextSendKey(max, g, edit ? 'edit' : 'react');
  const r = await deps.change(g.chat, key, action, g.fence);
  if (r.refused) {
    unsend(g);
    throw new ToolError(`${tool}: not done: ${r.refused}`);
  }
  return { text: `${edit ? 'Edited' : 'Reacted to'} ${target} (${sentLeft(max, g)}).` };
}
