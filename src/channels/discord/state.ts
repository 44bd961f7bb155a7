// The channel's small durable state, in the store's generic channel state (ChannelDeps.state):
// - `recent`: the ids of the last messages handled (stored, or deliberately passed over), so one
//   Discord delivers again (a resumed session's replay after a restart) is neither gated, downloaded
//   nor handed on twice. Written only once the outcome is durable: marked on arrival, a crash before
//   the store would lose the message. Bounded (RECENT_MAX), one row, so it needs no pruning.
// - `forbidden:<chat id>` (and their list, `forbidden`): channels the bot may not post in (a 403);
//   sends there stop at once until someone writes there again (access may have been given back).
// - `dm:<user id>`: the DM channel opened for a person, so `discord:dm:<user>` needs no lookup.
// - `gateway`: the session and the last sequence fully handled, so a restart resumes the session
//   and Discord replays what arrived while the relay was down, rather than losing it.
import type { ChannelStateStore } from '../../store/channel-state.js';

/** Far more than a resumed session replays (Discord keeps a session's backlog for minutes). */
export const RECENT_MAX = 1000;

export interface SavedSession {
  sessionId: string;
  resumeURL: string;
  shardCount: number;
  /** The last sequence number whose dispatch (and every one before it) has been handled. */
  sequence: number;
}

export interface Forbidden {
  at: number;
  error: string;
}

export class DiscordState {
  constructor(private readonly store: ChannelStateStore) {}

  async recent(): Promise<string[]> {
    const v = await this.store.get<unknown>('recent');
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  }

  async setRecent(ids: readonly string[]): Promise<void> {
    await this.store.set('recent', ids.slice(-RECENT_MAX));
  }

  forbidden(chatId: string): Promise<Forbidden | undefined> {
    return this.store.get<Forbidden>(`forbidden:${chatId}`);
  }

  async setForbidden(chatId: string, f: Forbidden | undefined): Promise<void> {
    await this.store.set(`forbidden:${chatId}`, f);
    // The list beside them, so status shows them again after a restart (the state has no key listing).
    const list = new Set((await this.store.get<string[]>('forbidden')) ?? []);
    if (f) list.add(chatId);
    else list.delete(chatId);
    await this.store.set('forbidden', [...list]);
  }

  /** Every chat marked forbidden, with why. */
  async forbiddenChats(): Promise<[string, Forbidden][]> {
    const out: [string, Forbidden][] = [];
    for (const chatId of (await this.store.get<string[]>('forbidden')) ?? []) {
      const f = await this.forbidden(chatId);
      if (f) out.push([chatId, f]);
    }
    return out;
  }

  dmChannel(userId: string): Promise<string | undefined> {
    return this.store.get<string>(`dm:${userId}`);
  }

  async setDmChannel(userId: string, channelId: string): Promise<void> {
    await this.store.set(`dm:${userId}`, channelId);
  }

  session(): Promise<SavedSession | undefined> {
    return this.store.get<SavedSession>('gateway');
  }

  async setSession(s: SavedSession | undefined): Promise<void> {
    await this.store.set('gateway', s);
  }
}
