// `agentwire login`, `logout` and `send` ask the WhatsApp socket's lease in the store, not the home's
// lock file: with the lease held by a relay on another host (a process registered on the store that
// holds `channel:whatsapp`; its home's lock is not this one), `login` and `logout` refuse in one
// sentence naming it, and `send` leaves the message in the store's outbox and tells that relay (an
// `outbox` notification) instead of opening a second socket. Built CLI, real SQLite in a temp home.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/open.js';
import { type Home, MAIN, makeHome, spawnNode } from './helpers.js';

let home: Home;
let store: Store;
const NUMBER = '+15550001111';

function run(args: string[]) {
  const p = spawnNode([MAIN, ...args], home.env);
  return p.exit.then(({ code }) => ({ code, out: p.stdout(), err: p.stderr() }));
}

beforeAll(async () => {
  expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
  home = makeHome({ whatsapp: { enabled: true, allowFrom: [NUMBER] }, console: { enabled: false } });
  store = await openStore({ engine: 'sqlite', stateDir: home.dir });
  // Linked creds (the two fields that say pairing succeeded) and a relay elsewhere holding the socket.
  await store.whatsapp.auth.saveCreds(
    JSON.stringify({ account: { details: 'x' }, me: { id: '15550001111:1@s.whatsapp.net' } }),
    1,
  );
  const other = await store.ownership.register(
    { host: 'host-b', pid: 4242, role: 'relay', startedAt: Date.now(), fingerprint: '' },
    Date.now(),
  );
  const lease = await store.ownership.acquireLeader('channel:whatsapp', other.id, Date.now(), 600_000);
  expect(lease.type).toBe('granted');
});

afterAll(async () => {
  await store?.close();
  home?.cleanup();
});

describe('login, logout and send while a relay on another host holds the WhatsApp socket', () => {
  it('login refuses in one sentence naming the holder', async () => {
    const r = await run(['login']);
    expect(r.code).toBe(1);
    expect(r.err.trim()).toBe(
      "WhatsApp's socket is held by host-b pid 4242: run `agentwire login` where that relay runs (or open its web console), or stop it first.",
    );
  });

  it('logout refuses in one sentence naming the holder, and keeps the credentials', async () => {
    const r = await run(['logout', '--yes']);
    expect(r.code).toBe(1);
    expect(r.err.trim()).toBe(
      "WhatsApp's socket is held by host-b pid 4242: stop that relay first, then log out.",
    );
    expect((await store.whatsapp.auth.readCreds())?.data).toContain('me');
  });

  it('send queues the message in the outbox and tells the socket holder', async () => {
    const before = await store.ownership.lastNotification();
    const r = await run(['send', '--to', `whatsapp:${NUMBER}`, '-m', 'hello from elsewhere']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('held by host-b pid 4242');
    const unsent = await store.queue.nextUnsent(`whatsapp:${NUMBER}`);
    expect(unsent?.item).toEqual({ type: 'text', text: 'hello from elsewhere' });
    const told = await store.ownership.notifications(before, 10);
    expect(told.map((n) => [n.topic, n.key])).toEqual([['outbox', `whatsapp:${NUMBER}`]]);
  });
});
