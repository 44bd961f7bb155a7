// One channel's small state on PostgreSQL (the rules of store/channel-state.ts): its keys in one
// table for every channel, values as JSON text (kept exactly as written), and seen keys whose
// record is one INSERT … ON CONFLICT DO NOTHING, so two deliveries racing cannot both be new.
import type { ChannelStateStore } from '../channel-state.js';
import type { Pool } from './pool.js';

export function pgChannelStateStore(
  pool: Pool,
  channel: string,
  now: () => number = Date.now,
): ChannelStateStore {
  return {
    get: async <T>(key: string) => {
      const r = await pool.query<{ value: string }>(
        'SELECT value FROM channel_state WHERE channel = $1 AND key = $2',
        [channel, key],
      );
      return r.rows[0] ? (JSON.parse(r.rows[0].value) as T) : undefined;
    },
    set: async (key, value) => {
      if (value === undefined) {
        await pool.query('DELETE FROM channel_state WHERE channel = $1 AND key = $2', [channel, key]);
        return;
      }
      await pool.query(
        `INSERT INTO channel_state (channel, key, value, updated_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (channel, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
        [channel, key, JSON.stringify(value), now()],
      );
    },
    seen: async (key) => {
      const r = await pool.query(
        'INSERT INTO channel_seen (channel, key, at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
        [channel, key, now()],
      );
      return (r.rowCount ?? 0) === 0;
    },
  };
}
