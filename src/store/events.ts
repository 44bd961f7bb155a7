// The events port's types, whatever the engine (the SQLite engine: store/sqlite/events.ts).

export type EventState = 'waiting' | 'running' | 'done';

/** One stored event. `options` is the runner's own JSON (session, agent, quiet…), opaque here. */
export interface StoredEvent {
  id: number;
  /** `file:<name>`, `hook:<name>`, `trigger`: for logs and status, never the body. */
  source: string;
  chat: string;
  prompt: string;
  dueAt: number;
  /** Ties at the same due time run in this order (a file's name). */
  orderName: string;
  options: string;
  state: EventState;
  attempts: number;
  outcome?: string;
}

export type NewEvent = Pick<StoredEvent, 'source' | 'chat' | 'prompt' | 'dueAt' | 'orderName' | 'options'>;

export type AddEventResult = { type: 'added'; id: number } | { type: 'duplicate'; id: number };

export interface EventStore {
  /** Stores the events of one batch in one transaction; one already stored under its key is a duplicate. */
  addAll(events: readonly (NewEvent & { key: string })[], now: number): Promise<AddEventResult[]>;
  /** Waiting and running events, in run order: due time, then name, then arrival. */
  open(): Promise<StoredEvent[]>;
  /** The first `limit` open events of one chat due by `now`, in run order (a chat's next ones). */
  dueFor(chat: string, now: number, limit: number): Promise<StoredEvent[]>;
  /**
   * Saves that a run begins (before the agent starts), counting the attempt, only while the row is
   * still as `seen` (its state and attempts when it was read): the row as begun, or undefined when
   * a look since (another drain, another process) began or finished it, so it is not run twice.
   */
  begin(id: number, seen: Pick<StoredEvent, 'state' | 'attempts'>): Promise<StoredEvent | undefined>;
  /**
   * Back to waiting (the chat was busy, or the relay stopped before the run began), only while the
   * row is still as `begun` left it (`attempts` as that begin counted them).
   */
  release(id: number, attempts: number): Promise<void>;
  finish(id: number, outcome: string, now: number): Promise<void>;
  /** Finished rows older than `before` are deleted (their keys with them). */
  prune(before: number): Promise<number>;
  get(id: number): Promise<StoredEvent | undefined>;
}
