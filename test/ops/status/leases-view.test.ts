// The leader leases in `status`: live ones only, each with its holder's host and pid, and each
// process's own list (src/ops/status/leases-view.ts).
import { describe, expect, it } from 'vitest';
import { leadsOf, leasesView } from '../../../src/ops/status/leases-view.js';
import type { ProcessInfo } from '../../../src/store/ownership.js';

const NOW = 1_700_000_000_000;
const proc = (id: string, host: string, pid: number): ProcessInfo => ({
  id,
  host,
  pid,
  role: 'relay',
  startedAt: NOW - 1000,
  lastSeen: NOW,
  fingerprint: '',
  schemaVersion: 1,
});
const src = {
  now: NOW,
  processes: [proc('a', 'host-a', 11), proc('b', 'host-b', 22)],
  leases: [
    { name: 'channel:telegram', holder: 'b', expiresAt: NOW + 5000 },
    { name: 'scheduler', holder: 'b', expiresAt: NOW + 5000 },
    // Ran out: its holder died and nobody took it yet.
    { name: 'channel:whatsapp', holder: 'a', expiresAt: NOW - 1 },
    { name: 'retention', holder: 'gone', expiresAt: NOW + 5000 },
  ],
};

describe('leases in status', () => {
  it('lists the live ones with their holder, and says which each process holds', () => {
    expect(leasesView(src).leases).toEqual([
      { name: 'channel:telegram', host: 'host-b', pid: 22, until: new Date(NOW + 5000).toISOString() },
      { name: 'scheduler', host: 'host-b', pid: 22, until: new Date(NOW + 5000).toISOString() },
      { name: 'retention', until: new Date(NOW + 5000).toISOString() },
    ]);
    expect(leadsOf(src, 'b')).toEqual({ leads: ['channel:telegram', 'scheduler'] });
    expect(leadsOf(src, 'a')).toEqual({});
    expect(leasesView({ now: NOW, leases: [] })).toEqual({});
  });
});
