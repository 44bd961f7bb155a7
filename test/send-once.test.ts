// agentwire send with no relay, over WhatsApp: holds the lock, connects the linked device (a fake
// Baileys socket at the far edge), delivers through the real outbox on real SQLite, stores what
// arrives meanwhile without running it, and lets go of everything afterwards.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sendWithoutRelay } from '../src/send-once.js';
import { acquireLock } from '../src/store/home-lock.js';
import { openDb } from '../src/store/sqlite/db.js';
import { QUEUE_MIGRATIONS } from '../src/store/sqlite/queue-schema.js';
import { whatsappMigration } from '../src/store/sqlite/whatsapp-auth.js';
import { fakeSockets } from './channels/whatsapp/fake-socket.js';
import { seedLinkedCreds } from './channels/whatsapp/harness.js';
import { text } from './channels/whatsapp/messages.js';
import { type Home, makeHome } from './e2e/helpers.js';
import { tempDir } from './helpers/tmp.js';

let home: Home | undefined;
afterEach(() => {
  home?.cleanup();
  home = undefined;
});

async function linkedHome(): Promise<Home> {
  const h = makeHome({ whatsapp: { enabled: true, allowFrom: ['+15550002222'] } });
  const db = openDb(join(h.dir, 'agentwire.db'), [...QUEUE_MIGRATIONS, whatsappMigration]);
  await seedLinkedCreds(db);
  db.close();
  return h;
}

describe('sendWithoutRelay over WhatsApp', () => {
  it('connects, sends text and an owner file once, stores an arriving message without running it', async () => {
    home = await linkedHome();
    const file = join(tempDir('aw-owner-'), 'notes.txt');
    writeFileSync(file, 'notes');
    const { makeSocket, sockets } = fakeSockets((s) =>
      setTimeout(() => {
        s.open();
        s.upsert([text({ chat: '15550002222@s.whatsapp.net', id: 'IN1' }, 'are you there?')]);
      }, 20),
    );
    const ctx = home.ctx();
    const r = await sendWithoutRelay(
      ctx,
      { channel: 'whatsapp', to: '+15550002222', text: 'deploy done', media: [file], connectTimeoutMs: 5000 },
      { makeSocket },
    );
    expect(r).toEqual({ ok: true, detail: 'sent as 2 message(s)' });
    const sent = sockets.flatMap((s) => s.sent);
    expect(sent.map((m) => m.jid)).toEqual(['15550002222@s.whatsapp.net', '15550002222@s.whatsapp.net']);
    expect(sent[0]?.content).toMatchObject({ text: 'deploy done' });
    expect(sent[1]?.content).toHaveProperty('document');
    expect(existsSync(join(home.dir, 'fake.jsonl'))).toBe(false); // the agent never ran
    const db = openDb(join(home.dir, 'agentwire.db'), QUEUE_MIGRATIONS);
    const rows = db.prepare('SELECT message_id, status FROM inbox').all();
    db.close();
    expect(rows).toEqual([{ message_id: 'IN1', status: 'pending' }]);
    // The lock is free again for the relay.
    const lock = await acquireLock(join(home.dir, 'relay.lock'), home.dir);
    expect(lock.ok).toBe(true);
    if (lock.ok) await lock.release();
  });

  it('says so when the device is not linked, and when it cannot connect in time', async () => {
    home = makeHome({ whatsapp: { enabled: true } });
    const req = {
      channel: 'whatsapp' as const,
      to: '+15550002222',
      text: 'x',
      media: [],
      connectTimeoutMs: 300,
    };
    expect(await sendWithoutRelay(home.ctx(), req)).toEqual({
      ok: false,
      error: 'WhatsApp is not linked: run `agentwire login` first.',
    });
    home.cleanup();
    home = await linkedHome();
    const { makeSocket, sockets } = fakeSockets();
    const r = await sendWithoutRelay(home.ctx(), req, { makeSocket });
    expect(r).toMatchObject({ ok: false, error: expect.stringContaining('Could not connect to WhatsApp') });
    expect(sockets.flatMap((s) => s.sent)).toEqual([]);
  });

  it('refuses while another process holds the relay lock', async () => {
    home = await linkedHome();
    const held = await acquireLock(join(home.dir, 'relay.lock'), home.dir);
    expect(held.ok).toBe(true);
    const r = await sendWithoutRelay(home.ctx(), {
      channel: 'whatsapp',
      to: '+15550002222',
      text: 'x',
      media: [],
      connectTimeoutMs: 300,
    });
    expect(r).toMatchObject({ ok: false, error: expect.stringContaining(`pid ${process.pid}`) });
    if (held.ok) await held.release();
  });
});
