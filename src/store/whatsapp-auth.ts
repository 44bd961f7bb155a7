// The whatsapp-auth port's types, whatever the engine (the SQLite engine: store/sqlite/whatsapp-auth.ts).

/** The stored creds: the channel's JSON text, and when the phone logged this device out. */
export interface StoredCreds {
  data: string;
  loggedOutAt: number | null;
}

/** One Signal key to write (`data` JSON text) or, with `data: null`, to delete. */
export interface KeyChange {
  type: string;
  id: string;
  data: string | null;
}

export interface WhatsAppAuthStore {
  readCreds(): Promise<StoredCreds | undefined>;
  /** Writes the creds (a logged-out mark stays); rejects and keeps the old copy on failure. */
  saveCreds(data: string, at: number): Promise<void>;
  markLoggedOut(at: number): Promise<void>;
  /** The stored keys of one type among `ids`, as JSON text by id. */
  readKeys(type: string, ids: readonly string[]): Promise<Map<string, string>>;
  /** Writes and deletes keys, all or none. */
  writeKeys(changes: readonly KeyChange[]): Promise<void>;
  clearKeys(): Promise<void>;
  /** Logout or relink: creds, keys, sent ids and chat JIDs go, in one transaction. */
  forget(): Promise<void>;
}
