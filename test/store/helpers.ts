import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InboundMessage } from '../../src/core/types.js';
import { type Db, openDb } from '../../src/store/sqlite/db.js';
import { QUEUE_MIGRATIONS } from '../../src/store/sqlite/queue-schema.js';

/** A real SQLite file in a fresh temp folder; `cleanup` closes and removes it. */
export function tempDb(): { db: Db; file: string; dir: string; reopen: () => Db; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'aw-store-'));
  const file = join(dir, 'agentwire.db');
  const opened: Db[] = [openDb(file, QUEUE_MIGRATIONS)];
  return {
    db: opened[0] as Db,
    file,
    dir,
    reopen: () => {
      const db = openDb(file, QUEUE_MIGRATIONS);
      opened.push(db);
      return db;
    },
    cleanup: () => {
      for (const db of opened) if (db.isOpen) db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function inbound(over: Partial<InboundMessage> = {}): InboundMessage {
  return {
    channel: 'console',
    chatId: 'local',
    senderId: 'local',
    messageId: 'm1',
    text: 'hello',
    media: [],
    isGroup: false,
    mentioned: false,
    at: 1_700_000_000_000,
    ...over,
  };
}
