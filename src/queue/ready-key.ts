// What `chat_ready` and `outbox` notifications carry: the chat, and the process meant to act on it
// when the sender knows who holds the chat's lease. Every process reads every notification; one
// naming a holder is for that process only (the others would try a lease they cannot get, and with
// three processes or more, tell each other again, round after round, until the holder lets go).
// One naming nobody is for whoever can act, as before. A named holder that died is no loss: its
// lease runs out (or it is reaped), and the orphan scan makes the chat ready on every process.
import type { ChatKey } from '../core/types.js';

/** Between the chat and the holder: never in a chat key (ids of channels' chats are printable). */
const SEP = '\n';

export interface ReadyKey {
  chat: ChatKey;
  /** The process meant to act on it; undefined: any process. */
  holder?: string;
}

export function readyKey(chat: ChatKey, holder?: string): string {
  return holder ? `${chat}${SEP}${holder}` : chat;
}

export function parseReadyKey(key: string): ReadyKey {
  const at = key.lastIndexOf(SEP);
  if (at < 0) return { chat: key as ChatKey };
  const holder = key.slice(at + 1);
  return { chat: key.slice(0, at) as ChatKey, ...(holder && { holder }) };
}

/** True when the notification is this process's to act on. */
export function forMe(r: ReadyKey, me: string): boolean {
  return r.holder === undefined || r.holder === me;
}
