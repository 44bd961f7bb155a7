// Linking and unlinking with a fake socket standing in for WhatsApp's servers; real SQLite.
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { proto } from '@whiskeysockets/baileys';
import { describe, expect, it } from 'vitest';
import { linkState, loadAuth } from '../../../src/channels/whatsapp/auth-store.js';
import { runLogin, runLogout } from '../../../src/channels/whatsapp/login.js';
import { runningRelay } from '../../../src/channels/whatsapp/relay-lock.js';
import { createLogger } from '../../../src/log.js';
import { openDb } from '../../../src/store/sqlite/db.js';
import { storeOver } from '../../../src/store/sqlite/open.js';
import { whatsappAuthStore, whatsappMigration } from '../../../src/store/sqlite/whatsapp-auth.js';
import { tempDir } from '../../helpers/tmp.js';
import { type FakeSocket, fakeSockets } from './fake-socket.js';
import { seedLinkedCreds } from './harness.js';

const log = createLogger({ level: 'silent' });

function env(onCreate: (s: FakeSocket, n: number) => void) {
  const db = openDb(join(tempDir('aw-login-'), 'agentwire.db'), [whatsappMigration]);
  const out: string[] = [];
  let n = 0;
  const { makeSocket, sockets } = fakeSockets((s) => {
    const i = n++;
    // Baileys emits connection events after the socket is returned.
    queueMicrotask(() => onCreate(s, i));
  });
  return {
    db,
    out,
    sockets,
    deps: {
      store: storeOver(db).whatsapp,
      log,
      makeSocket,
      out: (t: string) => void out.push(t),
      sleep: async () => {},
    },
  };
}

/** What WhatsApp does when the phone scans: pair-success creds, then a 515 close. */
function pair(s: FakeSocket): void {
  s.emit('creds.update', {
    me: { id: '15550001111:9@s.whatsapp.net', lid: '99990001111:9@lid', name: 'Owner' },
    account: proto.ADVSignedDeviceIdentity.fromObject({
      details: Buffer.from('d'),
      accountSignatureKey: Buffer.alloc(32, 1),
    }),
  });
  s.close(515, 'restart required');
}

describe('runLogin', () => {
  it('shows a QR, survives the expected 515, and stores the link', async () => {
    const e = env((s, i) => {
      if (i === 0) {
        s.emit('connection.update', { qr: '2@qrdata,abc' });
        pair(s);
      } else s.open();
    });
    const r = await runLogin(e.deps);
    expect(r).toEqual({ ok: true, alreadyLinked: false, account: '+15550001111' });
    expect(e.sockets).toHaveLength(2);
    expect(e.sockets.every((s) => s.listenerCount() === 0)).toBe(true);
    expect(e.out.join('')).toContain('Scan with your phone: WhatsApp → Settings → Linked devices');
    expect(e.out.join('')).toMatch(/[▄▀█]/); // a terminal QR drawn by the qrcode package
    expect(await linkState(whatsappAuthStore(e.db))).toBe('linked');
  });

  it('with --pair asks once for a pairing code instead of a QR', async () => {
    const e = env((s, i) => {
      if (i === 0) {
        s.emit('connection.update', { qr: 'first' });
        s.emit('connection.update', { qr: 'second' });
        setImmediate(() => pair(s));
      } else s.open();
    });
    const r = await runLogin({ ...e.deps, pairPhone: '+15550001111' });
    expect(r.ok).toBe(true);
    expect(e.sockets[0]!.pairingRequests).toEqual(['15550001111']);
    expect(e.out.join('')).toContain('Pairing code: ABCD-1234');
    expect(e.out.join('')).not.toMatch(/[▄▀█]/);
  });

  it('does nothing when already linked', async () => {
    const e = env(() => {});
    await seedLinkedCreds(e.db);
    expect(await runLogin(e.deps)).toEqual({ ok: true, alreadyLinked: true, account: '+15550001111' });
    expect(e.sockets).toHaveLength(0);
  });

  it('reports an expired QR', async () => {
    const e = env((s) => {
      s.emit('connection.update', { qr: '2@qrdata,abc' });
      s.close(408, 'QR refs attempts ended');
    });
    const r = await runLogin(e.deps);
    expect(r).toMatchObject({ ok: false });
    expect(!r.ok && r.error).toMatch(/QR code expired/);
    expect(await linkState(whatsappAuthStore(e.db))).toBe('unlinked');
  });

  it('offline: retries, then says WhatsApp is unreachable, never that a QR expired', async () => {
    // What Baileys closes with when DNS fails: getCodeFromWSError maps every E* error to 408.
    const e = env((s) => s.close(408, 'WebSocket Error (getaddrinfo EAI_AGAIN web.whatsapp.com)'));
    const r = await runLogin(e.deps);
    expect(r).toMatchObject({ ok: false });
    expect(!r.ok && r.error).toMatch(/unreachable: .*EAI_AGAIN/);
    expect(!r.ok && r.error).not.toMatch(/QR/);
    expect(e.sockets.length).toBeGreaterThan(1);
    // Never silent while it waits: it says it is connecting, then each failure and the next try.
    const said = e.out.join('');
    expect(said.startsWith('Connecting to WhatsApp…\n')).toBe(true);
    expect(said).toMatch(/WhatsApp is unreachable: .*EAI_AGAIN.*\. Trying again in \d+ s…\n/);
  });

  it('stops when the credentials cannot be saved', async () => {
    const e = env((s) => {
      const { page_count } = e.db.prepare('PRAGMA page_count').get() as { page_count: number };
      e.db.exec(`PRAGMA max_page_count = ${page_count}`);
      s.emit('creds.update', {
        processedHistoryMessages: Array.from({ length: 300 }, (_, i) => ({
          key: { id: `x${i}`.padEnd(300, 'z') },
        })),
      });
    });
    const r = await runLogin(e.deps);
    expect(r).toMatchObject({ ok: false });
    expect(!r.ok && r.error).toMatch(/could not save the credentials/);
  });

  it('after the phone removed the link, deletes the dead creds and links anew', async () => {
    const e = env((s, i) => (i === 0 ? pair(s) : s.open()));
    await seedLinkedCreds(e.db);
    const old = await loadAuth(whatsappAuthStore(e.db));
    if (!old.ok) throw new Error(old.error);
    await old.auth.markLoggedOut();
    const oldKey = Buffer.from(old.auth.state.creds.signedIdentityKey.public).toString('hex');
    const r = await runLogin(e.deps);
    expect(r.ok).toBe(true);
    expect(e.out.join('')).toContain('The phone removed the previous link');
    const now = await loadAuth(whatsappAuthStore(e.db));
    expect(now.ok && Buffer.from(now.auth.state.creds.signedIdentityKey.public).toString('hex')).not.toBe(
      oldKey,
    );
    expect(await linkState(whatsappAuthStore(e.db))).toBe('linked');
  });
});

describe('runLogout', () => {
  it('unlinks on the phone, then deletes the credentials', async () => {
    const e = env((s) => s.open());
    await seedLinkedCreds(e.db);
    expect(await runLogout(e.deps)).toEqual({ ok: true, wasLinked: true, unlinkedOnPhone: true });
    expect(e.sockets[0]!.loggedOut).toBe(true);
    expect(await linkState(whatsappAuthStore(e.db))).toBe('unlinked');
  });

  it('still deletes the credentials when WhatsApp cannot be reached, and says so', async () => {
    const e = env((s) => s.close(503));
    await seedLinkedCreds(e.db);
    expect(await runLogout(e.deps)).toEqual({ ok: true, wasLinked: true, unlinkedOnPhone: false });
    expect(await linkState(whatsappAuthStore(e.db))).toBe('unlinked');
  });

  it('has nothing to do when not linked', async () => {
    const e = env(() => {});
    expect(await runLogout(e.deps)).toEqual({ ok: true, wasLinked: false, unlinkedOnPhone: false });
    expect(e.sockets).toHaveLength(0);
  });
});

describe('runningRelay', () => {
  it('names a live holder, and ignores a missing lock, a leftover file, or a live PID written in it', async () => {
    const dir = tempDir('aw-lock-');
    const paths = { home: dir, lock: join(dir, 'relay.lock') };
    expect(await runningRelay(paths)).toBeUndefined();
    // A PID file naming a live process (our parent) is not a relay holding the lock.
    writeFileSync(paths.lock, JSON.stringify({ pid: process.ppid, startedAt: 1 }));
    expect(await runningRelay(paths)).toBeUndefined();
    rmSync(paths.lock);
    // A live holder in another process.
    const holder = spawn(process.execPath, [
      '--input-type=module',
      '-e',
      `const { acquireLock } = await import(${JSON.stringify(new URL('../../../dist/store/home-lock.js', import.meta.url).href)});
       const r = await acquireLock(${JSON.stringify(paths.lock)}, ${JSON.stringify(dir)});
       process.stdout.write('held\\n'); setInterval(() => {}, 1000);`,
    ]);
    try {
      await new Promise<void>((r) => holder.stdout.once('data', () => r()));
      expect(await runningRelay(paths)).toBe(`pid ${holder.pid}`);
    } finally {
      holder.kill('SIGKILL');
    }
    await new Promise((r) => holder.once('exit', r));
    expect(await runningRelay(paths)).toBeUndefined();
    rmSync(dir, { recursive: true, force: true });
  });
});
