// The host policy as tables: which live process a new session joins, the pool's sessions seen as one
// slot a process, and the host key (what makes two processes twins).
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/core/sandbox.js';
import { keyOf } from '../../src/drivers/factory.js';
import { type HostView, hostKey, hostRegistry, pickHost, type SharedHost } from '../../src/drivers/hosts.js';
import { processSlots } from '../../src/drivers/pool-entry.js';

const h = (key: string, attached: number, accepting = true): HostView => ({ key, attached, accepting });

describe('pickHost', () => {
  it.each([
    ['none yet: start one', [], 'k', 4, undefined],
    ['the one with room', [h('k', 1)], 'k', 4, 0],
    ['full: start one', [h('k', 4)], 'k', 4, undefined],
    ['cap 1: never shares', [h('k', 1)], 'k', 1, undefined],
    ['another key: start one', [h('other', 1)], 'k', 4, undefined],
    ['not accepting (retired, broken, closing): start one', [h('k', 1, false)], 'k', 4, undefined],
    ['the fullest with room', [h('k', 1), h('k', 3), h('k', 2)], 'k', 4, 1],
    ['the fullest skips a full one', [h('k', 4), h('k', 2), h('k', 1)], 'k', 4, 1],
  ] as const)('%s', (_what, hosts, key, cap, want) => {
    expect(pickHost(hosts, key, cap)).toBe(want);
  });
});

describe('processSlots', () => {
  it('one slot a host: busy, reserved or wanted if any session is, last used when any was, its memory once', () => {
    expect(
      processSlots([
        { key: 'a', host: 'h1', busy: false, lastTurnAt: 10, rssBytes: 100, expectBytes: 50 },
        { key: 'b', host: 'h1', busy: true, lastTurnAt: 5, wanted: true, rssBytes: 120, expectBytes: 50 },
        { key: 'c', host: 'h2', busy: false, reserved: true, lastTurnAt: 7, expectBytes: 60 },
        { key: 'd', host: 'h3', busy: false, lastTurnAt: 3, wanted: false, expectBytes: 70 },
      ]),
    ).toEqual([
      {
        key: 'h1',
        busy: true,
        reserved: false,
        lastTurnAt: 10,
        wanted: true,
        rssBytes: 120,
        expectBytes: 50,
      },
      { key: 'h2', busy: false, reserved: true, lastTurnAt: 7, expectBytes: 60 },
      { key: 'h3', busy: false, reserved: false, lastTurnAt: 3, wanted: false, expectBytes: 70 },
    ]);
  });
});

describe('hostKey', () => {
  it('the same argv and environment in any order is the same key; any difference is another', () => {
    const k = hostKey(['codex', 'app-server'], { A: '1', B: '2' });
    expect(hostKey(['codex', 'app-server'], { B: '2', A: '1' })).toBe(k);
    expect(hostKey(['codex', 'app-server'], { A: '1', B: '3' })).not.toBe(k);
    expect(hostKey(['codex', 'app-server', '-c', 'x=1'], { A: '1', B: '2' })).not.toBe(k);
    expect(hostKey(['codex', 'app-server'], { A: '1', B: '2' }, '/w')).not.toBe(k);
  });
});

describe('hostRegistry', () => {
  class Fake implements SharedHost {
    readonly id = Math.random().toString(36);
    n = 1;
    open = true;
    attached = () => this.n;
    accepting = () => this.open;
  }

  it('gives sessions to a host until the cap, per kind and key, and forgets closed hosts', () => {
    const r = hostRegistry(2);
    const a = r.acquire('codex', 'k', () => new Fake());
    expect(r.acquire('codex', 'k', () => new Fake())).toBe(a);
    a.n = 2;
    const b = r.acquire('codex', 'k', () => new Fake());
    expect(b).not.toBe(a);
    expect(r.acquire('acp', 'k', () => new Fake())).not.toBe(b);
    // b retired: a new one, not b; a has room again once a session left.
    b.open = false;
    a.n = 1;
    expect(r.acquire('codex', 'k', () => new Fake())).toBe(a);
  });
});

describe('keyOf: which codex and ACP processes chats may share', () => {
  const plan = (ro: string[]): Sandbox => ({
    type: 'bwrap',
    plan: {
      type: 'bwrap',
      bwrap: '/usr/bin/bwrap',
      rw: ['/w'],
      ro,
      roTry: [],
      links: [],
      tmpfs: [],
      hidden: [],
      setEnv: {},
    },
  });
  const proc = (sandbox?: Sandbox) => ({
    argv: ['codex', 'app-server'],
    env: { PATH: '/usr/bin' },
    ...(sandbox && { sandbox }),
  });
  it.each<[string, Sandbox | undefined, Sandbox | undefined, boolean]>([
    ['unsandboxed twins share', undefined, undefined, true],
    ['one sandbox plan: share', plan(['/usr', '/m/a']), plan(['/usr', '/m/a']), true],
    ["two chats' received files: never", plan(['/usr', '/m/a']), plan(['/usr', '/m/b']), false],
    ['sandboxed and not: never', plan(['/usr']), undefined, false],
  ])('%s', (_n, a, b, same) => {
    const ka = keyOf({ process: proc(a), permission: 'deny' });
    const kb = keyOf({ process: proc(b), permission: 'deny' });
    expect(ka === kb).toBe(same);
  });
});
