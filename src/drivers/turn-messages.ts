// A warm turn's assistant messages, gathered from stream events as the cold runner gathers them: a
// message becomes progress (masked, MEDIA lines taken out, as a /verbose chat sees it) once the
// agent visibly carries on, and the last one is the reply. Shared by every protocol's driver.
import type { StreamEvent } from '../agents/types.js';
import { maskCredentials } from '../log.js';
import { extractMedia } from '../media/parse.js';

export interface TurnMessages {
  /** Every message so far, raw (okResult masks and splits them). */
  readonly messages: string[];
  add(events: readonly StreamEvent[]): void;
}

export function turnMessages(onProgress?: (text: string) => void): TurnMessages {
  const messages: string[] = [];
  let pending: string | undefined;
  return {
    messages,
    add(events) {
      for (const ev of events) {
        if (ev.type === 'message') messages.push(ev.text);
        if (pending !== undefined && onProgress) emitProgress(onProgress, pending);
        pending = ev.type === 'message' ? ev.text : undefined;
      }
    },
  };
}

function emitProgress(onProgress: (text: string) => void, raw: string): void {
  const { text } = extractMedia(maskCredentials(raw));
  try {
    if (text) onProgress(text);
  } catch {
    // A failing listener must not break the turn it listens to.
  }
}
