// The open alert incident per channel on PostgreSQL (the rules of store/alert-incidents.ts).
import type { IncidentStore } from '../alert-incidents.js';
import type { Pool } from './pool.js';

export function pgIncidentStore(pool: Pool): IncidentStore {
  return {
    get: async (channel) => {
      const r = await pool.query<{ kind: string; since: number; alerted_at: number | null }>(
        'SELECT kind, since, alerted_at FROM alert_incidents WHERE channel = $1',
        [channel],
      );
      const row = r.rows[0];
      if (!row) return undefined;
      return {
        kind: row.kind,
        since: row.since,
        ...(row.alerted_at !== null && { alertedAt: row.alerted_at }),
      };
    },
    put: async (channel, i) => {
      await pool.query(
        `INSERT INTO alert_incidents (channel, kind, since, alerted_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (channel) DO UPDATE SET kind = excluded.kind, since = excluded.since, alerted_at = excluded.alerted_at`,
        [channel, i.kind, i.since, i.alertedAt ?? null],
      );
    },
    clear: async (channel) => {
      await pool.query('DELETE FROM alert_incidents WHERE channel = $1', [channel]);
    },
  };
}
