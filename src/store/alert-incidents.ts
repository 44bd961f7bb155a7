// The alert-incidents port's types, whatever the engine (the SQLite engine: store/sqlite/alert-incidents.ts).

/** An incident as stored; its `kind` is the alert policy's (ops/alert/policy.ts). */
export interface StoredIncident<K extends string = string> {
  kind: K;
  since: number;
  alertedAt?: number;
}

export interface IncidentStore<K extends string = string> {
  get(channel: string): Promise<StoredIncident<K> | undefined>;
  put(channel: string, incident: StoredIncident<K>): Promise<void>;
  clear(channel: string): Promise<void>;
}
