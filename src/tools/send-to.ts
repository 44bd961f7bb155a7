// Pure: where send_message's `to` may write. Only a name in the config's `targets`, and only from a
// chat `tools.sendTo` lets write there; anything else is a sentence for the agent and nothing is
// sent. Table-tested in test/tools/send-to.test.ts.
import { type ChatKey, parseChatKey } from '../core/types.js';

export interface SendToInput {
  to: string;
  /** The run's chat. */
  chat: ChatKey;
  targets: Readonly<Record<string, string>>;
  sendTo: Readonly<Record<string, readonly string[]>>;
}

export type SendToDecision = { ok: true; chat: ChatKey } | { ok: false; error: string };

export function decideSendTo(i: SendToInput): SendToDecision {
  const name = i.to.trim();
  const shown = name.slice(0, 64);
  if (!Object.hasOwn(i.targets, name))
    return {
      ok: false,
      error: /^[+\d]|:/.test(name)
        ? "to takes a name from the config's targets, never a number or a chat key"
        : `"${shown}" is not a name in the config's targets`,
    };
  const chat = parseChatKey((i.targets[name] ?? '').trim());
  if (!chat) return { ok: false, error: `target "${shown}" is not a chat key in the config` };
  const key: ChatKey = `${chat.channel}:${chat.chatId}`;
  const from = Object.hasOwn(i.sendTo, name) ? (i.sendTo[name] ?? []) : [];
  const allowed = from.some((f) => {
    const t = f.trim();
    if (t === '*') return true;
    const named = Object.hasOwn(i.targets, t) ? i.targets[t]?.trim() : undefined;
    return (named ?? t) === i.chat;
  });
  if (!allowed)
    return { ok: false, error: `this chat may not write to "${shown}" (the config's tools.sendTo)` };
  return { ok: true, chat: key };
}
