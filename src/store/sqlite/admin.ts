// The SQLite engine's answers about its store (store/admin.ts): one file in the state folder with
// its write-ahead log beside it, read through read-only connections that never create or migrate it,
// copied with VACUUM INTO (store/sqlite/backup.ts).
import { existsSync } from 'node:fs';
import type { StoreAdmin } from '../admin.js';
import { backupStore } from './backup.js';
import { sqliteFile } from './open.js';
import { readChannelValueFile, readStatusFile, readWhatsAppCredsFile } from './status-read.js';

export function sqliteAdmin(stateDir: string): StoreAdmin {
  const file = sqliteFile(stateDir);
  return {
    where: file,
    // WAL mode keeps recent writes in `-wal` and the shared index in `-shm`: both hold message data.
    localFiles: () => [file, `${file}-wal`, `${file}-shm`].filter((f) => existsSync(f)),
    statusFacts: () => readStatusFile(file),
    whatsappCreds: () => readWhatsAppCredsFile(file),
    channelValue: async (channel, key) => readChannelValueFile(file, channel, key),
    backup: (dest) => backupStore(file, dest),
  };
}
