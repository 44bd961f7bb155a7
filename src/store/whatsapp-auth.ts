// The whatsapp-auth port's types, whatever the engine (the SQLite engine: store/sqlite/whatsapp-auth.ts).
//
// The writes take the socket owner's fence (the leader lease `channel:whatsapp`, its `chat` the
// lease's name): a process paused past its lease wakes up with Baileys still holding creds and keys
// it would write back, over what its successor's socket wrote meanwhile; the fenced write is refused
// (FenceConflict) and writes nothing. Without a fence (`login`, tests) the write is made as before.
import type { Fence } from './ownership.js';

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
  saveCreds(data: string, at: number, fence?: Fence): Promise<void>;
  markLoggedOut(at: number, fence?: Fence): Promise<void>;
  /** The stored keys of one type among `ids`, as JSON text by id. */
  readKeys(type: string, ids: readonly string[]): Promise<Map<string, string>>;
  /** Writes and deletes keys, all or none. */
  writeKeys(changes: readonly KeyChange[], fence?: Fence): Promise<void>;
  clearKeys(fence?: Fence): Promise<void>;
  /** Logout or relink: creds, keys, sent ids and chat JIDs go, in one transaction. */
  forget(): Promise<void>;
}
