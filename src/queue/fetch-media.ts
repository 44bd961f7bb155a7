// Attachments a message was stored with as links (a Twilio webhook is acknowledged before anything is
// downloaded) are fetched by their channel here, just before the run that answers them. The result is
// written back to the row before the agent runs, so a run redone after a crash does not download again,
// and a row stored by a process that stopped before its run gets its files after the next start.
import type { Channel } from '../channels/types.js';
import type { ChatKey, FetchedMedia, RemoteMedia } from '../core/types.js';
import { maskId } from '../log.js';
import type { InboxRow } from '../store/contract/inbox.js';
import type { QueueStore } from '../store/queue-ops.js';
import { type PersistOptions, persist } from './persist.js';

export interface FetchDeps {
  store: QueueStore;
  channel: Channel | undefined;
  persist: Omit<PersistOptions, 'what' | 'fields'>;
}

/** A note for each attachment that cannot be fetched because the channel is not running here. */
function unreachable(remote: readonly RemoteMedia[]): FetchedMedia {
  return {
    media: [],
    notes: remote.map((r, i) => `[attachment ${i + 1} (${r.mimeType}) could not be downloaded]`),
  };
}

/** `rows` with every remote attachment fetched and recorded; `undefined` if stopped while recording. */
export async function fetchRemoteMedia(
  deps: FetchDeps,
  chat: ChatKey,
  rows: readonly InboxRow[],
): Promise<InboxRow[] | undefined> {
  const out: InboxRow[] = [];
  for (const row of rows) {
    const remote = row.remoteMedia;
    if (!remote || remote.length === 0) {
      out.push(row);
      continue;
    }
    const chatId = chat.slice(chat.indexOf(':') + 1);
    let got: FetchedMedia;
    try {
      got = deps.channel?.fetchMedia ? await deps.channel.fetchMedia(chatId, remote) : unreachable(remote);
    } catch (err) {
      deps.persist.log.error({ err, chat: maskId(chat), id: row.id }, 'attachment download failed');
      got = unreachable(remote);
    }
    const media = [...row.media, ...got.media];
    const text = [row.text, ...got.notes].filter(Boolean).join('\n\n');
    const saved = await persist(() => deps.store.saveFetchedMedia(row.id, media, text), {
      ...deps.persist,
      what: 'record downloaded attachments',
      fields: { chat: maskId(chat), id: row.id },
    });
    if (!saved.ok) return undefined;
    const { remoteMedia: _done, ...rest } = row;
    out.push({ ...rest, media, text });
  }
  return out;
}
