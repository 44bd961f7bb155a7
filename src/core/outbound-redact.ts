// The one redaction every text bound for a chat passes before it is stored: a reply, a tool's
// message, a file's caption, a question or approval, a heartbeat's or a schedule's answer, a notice.
// The store calls it on every outbox item it writes (and on an interaction's text), so no path can
// skip it; the secret list is the credentials registered in log.ts (every live run's tool token,
// the channels' auth tokens and secrets from config and env, key-like env values). Pure over that list.
import { maskCredentials } from '../log.js';
import type { OutboxItem } from './types.js';

/** Text on its way to a chat, each registered credential replaced by `[redacted]`. */
export const redactOutbound = (text: string): string => maskCredentials(text);

/**
 * An outbox item with every field a person can read redacted. A URL is masked too: a link carrying
 * a token would hand the token to whoever reads the chat, and a broken link is the lesser harm.
 */
export function redactItem<T extends OutboxItem>(item: T): T;
export function redactItem(item: OutboxItem): OutboxItem {
  switch (item.type) {
    case 'edit':
    case 'text':
      return { ...item, text: maskCredentials(item.text) };
    case 'file':
      return {
        ...item,
        fileName: maskCredentials(item.fileName),
        ...(item.caption !== undefined && { caption: maskCredentials(item.caption) }),
      };
    case 'url':
      return {
        ...item,
        url: maskCredentials(item.url),
        ...(item.caption !== undefined && { caption: maskCredentials(item.caption) }),
      };
    case 'delete':
      // An id of ours: nothing a person reads.
      return item;
    case 'react':
      // One emoji (checked by the tool): nothing a credential could hide in.
      return item;
    case 'card':
      return {
        ...item,
        card: {
          title: maskCredentials(item.card.title),
          body: maskCredentials(item.card.body),
          buttons: item.card.buttons.map(maskCredentials),
        },
      };
  }
}
