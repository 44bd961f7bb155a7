// The twilio-sends port's types, whatever the engine (the SQLite engine: store/sqlite/twilio-sends.ts).

export interface TwilioDelivery {
  sid: string;
  chatId: string;
  status: string;
  errorCode?: string;
  updatedAt: number;
}

export interface TwilioSendStore {
  saveTwilioSend(sid: string, chatId: string, status: string, at: number): Promise<void>;
  /**
   * Applies a status callback with `next(stored, incoming)` inside one transaction; returns the
   * status now stored, or undefined for an unknown sid.
   */
  recordStatus(
    sid: string,
    status: string,
    errorCode: string | undefined,
    at: number,
    next: (stored: string, incoming: string) => string,
  ): Promise<string | undefined>;
  delivery(sid: string): Promise<TwilioDelivery | undefined>;
  block(chatId: string, code: string, at: number): Promise<void>;
  blocked(chatId: string): Promise<string | undefined>;
  unblock(chatId: string): Promise<void>;
  /** True (and remembered) when this sender has not been refused in the day before `at`. */
  claimRefusal(sender: string, at: number): Promise<boolean>;
  /** Marks `sid` seen by the poll; false when it was seen before. */
  markPollSeen(sid: string, at: number): Promise<boolean>;
  pollSeen(sid: string): Promise<boolean>;
  getState(key: string): Promise<string | undefined>;
  setState(key: string, value: string): Promise<void>;
  /** Forgets poll ids after 14 days, refusals after a day, delivery records after 30 days. */
  prune(at: number): Promise<void>;
}
