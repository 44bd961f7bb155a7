// WhatsApp's creds and keys fenced by the socket's lease on PostgreSQL: two pools on one database, as
// two relays have (the same suite as SQLite's, test/store/whatsapp-fence-suite.ts).
import { afterEach, describe, it } from 'vitest';
import type { Store } from '../../src/store/open.js';
import { openPostgresStore } from '../../src/store/postgres/store.js';
import { whatsappFenceSuite } from '../store/whatsapp-fence-suite.js';
import { freshDatabase } from '../support/postgres-db.js';

const opened: Store[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close().catch(() => undefined);
});

describe('WhatsApp creds and keys fenced by the socket lease (PostgreSQL)', () => {
  it("refuses a former socket owner's writes once the lease moved, and keeps the new owner's", async () => {
    const url = await freshDatabase();
    const a = await openPostgresStore(url);
    opened.push(a);
    const b = await openPostgresStore(url);
    opened.push(b);
    await whatsappFenceSuite(a, b);
  });
});
