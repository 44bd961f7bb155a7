// Small durable state a channel keeps for itself: offsets, dedupe ids, a setting it learned. One
// table for every channel, namespaced by the channel's name, so a new channel needs no migration of
// its own for this ("a channel is one folder plus one line in a registry"). Values are JSON.
// Every operation returns a Promise, so an engine with an asynchronous client can stand in.

import type { ChannelStateStore } from '../channel-state.js';
import { type Db, type Migration, prepared } from './db.js';

export type { ChannelStateStore } from '../channel-state.js';

export const channelStateMigration: Migration = {
  module: 'channel_state',
  steps: [
    `CREATE TABLE channel_state (
       channel TEXT NOT NULL,
       key TEXT NOT NULL,
       value TEXT NOT NULL,
       updated_at INTEGER NOT NULL,
       PRIMARY KEY (channel, key)
     ) WITHOUT ROWID;
     CREATE TABLE channel_seen (
       channel TEXT NOT NULL,
       key TEXT NOT NULL,
       at INTEGER NOT NULL,
       PRIMARY KEY (channel, key)
     ) WITHOUT ROWID;
     CREATE INDEX channel_seen_at ON channel_seen (at);`,
  ],
};

export function channelStateStore(db: Db, channel: string, now: () => number = Date.now): ChannelStateStore {
  return {
    get: async <T>(key: string) => {
      const row = prepared(db, 'SELECT value FROM channel_state WHERE channel = ? AND key = ?').get(
        channel,
        key,
      ) as { value: string } | undefined;
      return row ? (JSON.parse(row.value) as T) : undefined;
    },
    set: async (key, value) => {
      if (value === undefined) {
        prepared(db, 'DELETE FROM channel_state WHERE channel = ? AND key = ?').run(channel, key);
        return;
      }
      prepared(
        db,
        `INSERT INTO channel_state (channel, key, value, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT(channel, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
      ).run(channel, key, JSON.stringify(value), now());
    },
    seen: async (key) => {
      const r = prepared(db, 'INSERT OR IGNORE INTO channel_seen (channel, key, at) VALUES (?, ?, ?)').run(
        channel,
        key,
        now(),
      );
      return Number(r.changes) === 0;
    },
  };
}

/** Forgets seen keys recorded before `before` (ms), every channel's; returns how many. For retention. */
export async function forgetSeenBefore(db: Db, before: number): Promise<number> {
  return Number(prepared(db, 'DELETE FROM channel_seen WHERE at < ?').run(before).changes);
}
