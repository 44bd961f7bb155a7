// The open alert incident per channel, kept in SQLite so a restart neither forgets that the owner
// was already told nor tells them again.
import type { Db, Migration } from '../../store/db.js';
import type { Incident, IncidentKind } from './policy.js';

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

export interface IncidentStore {
  get(channel: string): Incident | undefined;
  put(channel: string, incident: Incident): void;
  clear(channel: string): void;
}

export function createIncidentStore(db: Db): IncidentStore {
  const get = db.prepare('SELECT kind, since, alerted_at FROM alert_incidents WHERE channel = ?');
  const put = db.prepare(
    `INSERT INTO alert_incidents (channel, kind, since, alerted_at) VALUES (?, ?, ?, ?)
     ON CONFLICT(channel) DO UPDATE SET kind = excluded.kind, since = excluded.since, alerted_at = excluded.alerted_at`,
  );
  const del = db.prepare('DELETE FROM alert_incidents WHERE channel = ?');
  return {
    get(channel) {
      const row = get.get(channel) as
        | { kind: IncidentKind; since: number; alerted_at: number | null }
        | undefined;
      if (!row) return undefined;
      return {
        kind: row.kind,
        since: row.since,
        ...(row.alerted_at !== null && { alertedAt: row.alerted_at }),
      };
    },
    put(channel, i) {
      put.run(channel, i.kind, i.since, i.alertedAt ?? null);
    },
    clear(channel) {
      del.run(channel);
    },
  };
}
