// The open alert incident per channel (ops/alert), kept so a restart neither forgets that the owner
// was already told nor tells them again.

import type { IncidentStore } from '../alert-incidents.js';
import { type Db, type Migration, prepared, transaction } from './db.js';

export type { IncidentStore, StoredIncident } from '../alert-incidents.js';

export const alertMigration: Migration = {
  module: 'alerts',
  steps: [
    `CREATE TABLE alert_incidents (
       channel TEXT PRIMARY KEY,
       kind TEXT NOT NULL,
       since INTEGER NOT NULL,
       alerted_at INTEGER
     );`,
  ],
};

export function incidentStore<K extends string = string>(db: Db): IncidentStore<K> {
  return {
    get: async (channel) => {
      const row = prepared(db, 'SELECT kind, since, alerted_at FROM alert_incidents WHERE channel = ?').get(
        channel,
      ) as { kind: K; since: number; alerted_at: number | null } | undefined;
      if (!row) return undefined;
      return {
        kind: row.kind,
        since: row.since,
        ...(row.alerted_at !== null && { alertedAt: row.alerted_at }),
      };
    },
    put: async (channel, i) => {
      transaction(db, () =>
        prepared(
          db,
          `INSERT INTO alert_incidents (channel, kind, since, alerted_at) VALUES (?, ?, ?, ?)
           ON CONFLICT(channel) DO UPDATE SET kind = excluded.kind, since = excluded.since, alerted_at = excluded.alerted_at`,
        ).run(channel, i.kind, i.since, i.alertedAt ?? null),
      );
    },
    clear: async (channel) => {
      transaction(db, () => prepared(db, 'DELETE FROM alert_incidents WHERE channel = ?').run(channel));
    },
  };
}
