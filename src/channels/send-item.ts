// One outbound item for a channel that sends two things, text and files: a link the agent named
// goes out as text (its caption, then the address on a line of its own), never fetched by the
// relay, since fetching an address the agent chose, from the user's machine, is not worth the risk.
// Channel-neutral: each channel passes its own text and file senders.
import type { OutboundItem, SendResult } from '../core/types.js';

export type FileItem = Extract<OutboundItem, { type: 'file' }>;

/** The text a link is sent as: the caption (when it says anything) above the address. */
export function linkText(item: { url: string; caption?: string }): string {
  return item.caption?.trim() ? `${item.caption}\n${item.url}` : item.url;
}

export interface TextAndFile {
  /** `code`: the text exactly as written, never read as Markdown (OutboundItem `code`). */
  text(text: string, code: boolean): Promise<SendResult>;
  file(item: FileItem): Promise<SendResult>;
}

/** Sends `item` through `out`; an item of a type this build does not know is refused, not retried. */
export function sendTextOrFile(item: OutboundItem, out: TextAndFile): Promise<SendResult> {
  switch (item.type) {
    case 'text':
      return out.text(item.text, item.code === true);
    case 'url':
      return out.text(linkText(item), false);
    case 'file':
      return out.file(item);
    default: {
      const never: never = item;
      return Promise.resolve({ ok: false, error: `unknown item ${JSON.stringify(never)}`, retryable: false });
    }
  }
}
