// Pure: whether an edit or a reaction the agent asks for may be stored, given the message agentwire's
// id names and what the chat's channel can do. Table-tested in test/tools/message-policy.test.ts.
// A refusal is the sentence the agent reads; nothing is stored after one.
import type { MessageRefRow } from '../store/contract/outbox.js';

/** One emoji as a person sees it (flags, skin tones and joined sequences included), nothing else. */
// biome-ignore lint/complexity/useRegexLiterals: the `v` flag (Unicode sets, which RGI_Emoji needs) is newer than the compile target, so a literal does not compile.
const ONE_EMOJI = new RegExp('^\\p{RGI_Emoji}$', 'v');

export const isOneEmoji = (s: string): boolean => ONE_EMOJI.test(s);

export interface ChangeInput {
  kind: 'edit' | 'react';
  /** The agent's argument, as given. */
  ref: string;
  /** Undefined: the id is not one of agentwire's forms. */
  parsed: boolean;
  /** What the store holds under the id; undefined: nothing. */
  row: MessageRefRow | undefined;
  /** The run's chat key. */
  chat: string;
  /** The chat's channel can edit (react) messages (its plugin's capabilities). */
  capable: boolean;
  /** For an edit: the new text, and the longest one message of the channel may be. */
  text?: string;
  textLimit?: number;
  /** For a reaction. */
  emoji?: string;
}

export type ChangeDecision = { ok: true } | { ok: false; error: string };

export function decideChange(i: ChangeInput): ChangeDecision {
  const what = i.kind === 'edit' ? 'edit messages' : 'react to messages';
  // Before the id: an agent told its channel cannot do it should not try another id.
  if (!i.capable) return { ok: false, error: `this channel cannot ${what}` };
  const id = i.ref.slice(0, 40);
  if (!i.parsed)
    return {
      ok: false,
      error: `"${id}" is not a message id (send_message gives out:<n>; chat_info gives the id of the message you answer)`,
    };
  // Another chat's message is named as if it did not exist: its chat is not this run's to learn of.
  if (!i.row || i.row.chat !== i.chat) return { ok: false, error: `no message ${id} in this chat` };
  if (i.kind === 'edit') {
    if (!i.row.own)
      return { ok: false, error: `${id} is the person's message: only messages you sent can be edited` };
    if (i.row.status === 'failed')
      return { ok: false, error: `${id} was never delivered, so it cannot be edited` };
    const text = i.text ?? '';
    if (!text.trim()) return { ok: false, error: 'the new text is empty' };
    if (i.textLimit !== undefined && text.length > i.textLimit)
      return {
        ok: false,
        error: `the new text is ${text.length} characters; one message on this channel holds at most ${i.textLimit}`,
      };
    return { ok: true };
  }
  if (i.row.status === 'failed')
    return { ok: false, error: `${id} was never delivered, so it cannot get a reaction` };
  if (!isOneEmoji(i.emoji ?? '')) return { ok: false, error: 'a reaction is exactly one emoji, like 👍' };
  return { ok: true };
}
