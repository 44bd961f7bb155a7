// The channel-state port's types, whatever the engine (the SQLite engine: store/sqlite/channel-state.ts).

/** One channel's view of the table: its own keys only. */
export interface ChannelStateStore {
  /** The value stored under `key`, or undefined. */
  get<T = unknown>(key: string): Promise<T | undefined>;
  /** Stores `value` (JSON) under `key`; `undefined` deletes it. */
  set(key: string, value: unknown): Promise<void>;
  /**
   * Records `key` as seen and resolves whether it already was (true: a duplicate). One statement, so
   * two deliveries of the same update racing each other cannot both resolve false.
   */
  seen(key: string): Promise<boolean>;
}
