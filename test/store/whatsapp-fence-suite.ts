// WhatsApp's creds and Signal keys written under the socket's lease (`channel:whatsapp`), run on every
// engine by two stores on one database, as two relays have: once the lease moved to B, a write of A
// (paused past its lease, then woken with Baileys' state in memory) is refused as a conflict and
// changes nothing; B's writes go through; an unfenced write (`login`, one process) still writes.
import { expect } from 'vitest';
import { StoreError } from '../../src/store/errors.js';
import type { Store } from '../../src/store/open.js';
import type { Fence } from '../../src/store/ownership.js';

const LEAD = 'channel:whatsapp';

async function refused(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => 'written',
    (err: unknown) => err,
  );
}

/** B takes the lease once A's ran out (A renews nothing: it is paused); bounded by 10 s. */
async function takeOver(b: Store): Promise<Fence> {
  for (const end = Date.now() + 10_000; Date.now() < end; ) {
    const r = await b.ownership.acquireLeader(LEAD, 'B', Date.now(), 60_000);
    if (r.type === 'granted') return r.fence;
    await new Promise((res) => setTimeout(res, 20));
  }
  throw new Error('B never got the lease');
}

export async function whatsappFenceSuite(a: Store, b: Store): Promise<void> {
  // A holds the socket for 200 ms and never renews it.
  const ga = await a.ownership.acquireLeader(LEAD, 'A', Date.now(), 200);
  if (ga.type !== 'granted') throw new Error('A should hold the socket');
  await a.whatsapp.auth.saveCreds('{"v":"A1"}', 1, ga.fence);
  await a.whatsapp.auth.writeKeys([{ type: 'session', id: 's1', data: '"A1"' }], ga.fence);

  const gb = await takeOver(b);
  expect(gb.epoch).toBe(ga.fence.epoch + 1);
  await b.whatsapp.auth.saveCreds('{"v":"B1"}', 2, gb);
  await b.whatsapp.auth.writeKeys(
    [
      { type: 'session', id: 's1', data: '"B1"' },
      { type: 'pre-key', id: 'p1', data: '"B1"' },
    ],
    gb,
  );

  // A wakes up and writes what it had in memory: every write refused, nothing changed.
  const lateWrites: [string, () => Promise<unknown>][] = [
    ['saveCreds', () => a.whatsapp.auth.saveCreds('{"v":"A2"}', 3, ga.fence)],
    [
      'writeKeys',
      () =>
        a.whatsapp.auth.writeKeys(
          [
            { type: 'session', id: 's1', data: '"A2"' },
            { type: 'pre-key', id: 'p1', data: null },
          ],
          ga.fence,
        ),
    ],
    ['markLoggedOut', () => a.whatsapp.auth.markLoggedOut(3, ga.fence)],
    ['clearKeys', () => a.whatsapp.auth.clearKeys(ga.fence)],
  ];
  for (const [what, write] of lateWrites) {
    const err = await refused(write());
    expect(err, what).toBeInstanceOf(StoreError);
    expect(err, what).toMatchObject({ failure: { reason: 'conflict', retryable: false } });
  }
  expect(await a.whatsapp.auth.readCreds()).toEqual({ data: '{"v":"B1"}', loggedOutAt: null });
  expect(await a.whatsapp.auth.readKeys('session', ['s1'])).toEqual(new Map([['s1', '"B1"']]));
  expect(await a.whatsapp.auth.readKeys('pre-key', ['p1'])).toEqual(new Map([['p1', '"B1"']]));

  // B gave the socket back (it stopped): its fence no longer writes either.
  await b.ownership.releaseLeader(LEAD, 'B');
  expect(await refused(b.whatsapp.auth.saveCreds('{"v":"B2"}', 4, gb)), 'released').toBeInstanceOf(
    StoreError,
  );
  // Without a fence (`agentwire login` with no relay anywhere) a write goes through as before.
  await a.whatsapp.auth.saveCreds('{"v":"login"}', 5);
  expect((await b.whatsapp.auth.readCreds())?.data).toBe('{"v":"login"}');
}
