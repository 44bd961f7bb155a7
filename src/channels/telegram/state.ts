// The channel's small durable state, in the store's generic channel state (ChannelDeps.state): the
// long-poll offset (so a restart does not read updates again) and the chats that blocked the bot (so sends to them stop).
import type { ChannelStateStore } from '../../store/channel-state.js';

const OFFSET = 'offset';
const blockedKey = (chatId: string) => `blocked:${chatId}`;

/** What the channel keeps, in its own words. */
export class TelegramState {
  constructor(private readonly store: ChannelStateStore) {}

  async offset(): Promise<number> {
    const v = await this.store.get<number>(OFFSET);
    return typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : 0;
  }

  /** The next update id to ask for: every update below it has been handled. */
  async setOffset(next: number): Promise<void> {
    await this.store.set(OFFSET, next);
  }

  async isBlocked(chatId: string): Promise<boolean> {
    return (await this.store.get(blockedKey(chatId))) !== undefined;
  }

  async setBlocked(chatId: string, blocked: boolean, at: number): Promise<void> {
    await this.store.set(blockedKey(chatId), blocked ? at : undefined);
  }
}

/** A ChannelStateStore in memory, for tests and for `send` outside a relay. */
export function memoryStateStore(): ChannelStateStore {
  const values = new Map<string, string>();
  const seen = new Set<string>();
  return {
    get: async <T>(key: string) => {
      const v = values.get(key);
      return v === undefined ? undefined : (JSON.parse(v) as T);
    },
    set: async (key, value) => {
      if (value === undefined) values.delete(key);
      else values.set(key, JSON.stringify(value));
    },
    seen: async (key) => {
      if (seen.has(key)) return true;
      seen.add(key);
      return false;
    },
  };
}
