// WhatsApp's creds and keys fenced by the socket's lease on SQLite: two stores on one file, as a relay
// and a second process on one home have (test/store/whatsapp-fence-suite.ts; PostgreSQL runs the same
// in test/postgres/whatsapp-fence.test.ts).
import { afterEach, describe, it } from 'vitest';
import { openStore, type Store } from '../../src/store/open.js';
import { tempDir } from '../helpers/tmp.js';
import { whatsappFenceSuite } from './whatsapp-fence-suite.js';

const open: Store[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

describe('WhatsApp creds and keys fenced by the socket lease (SQLite)', () => {
  it("refuses a former socket owner's writes once the lease moved, and keeps the new owner's", async () => {
    const stateDir = tempDir('aw-wa-fence-');
    const a = await openStore({ engine: 'sqlite', stateDir });
    const b = await openStore({ engine: 'sqlite', stateDir });
    open.push(a, b);
    await whatsappFenceSuite(a, b);
  });
});
