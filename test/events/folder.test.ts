// The events folder with real files and a real store: good files become stored events and go, bad
// ones move to rejected/ with the reason beside them, a burst is stored in order once, and a file
// left behind by a crash after its event was stored is not stored twice.
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scanFolder } from '../../src/events/folder.js';
import { chatResolver } from '../../src/events/resolve.js';
import { openSqliteStore, type Store } from '../../src/store/sqlite/open.js';
import { memoryLog } from '../queue/helpers.js';

let dir: string;
let events: string;
let store: Store;
const NOW = Date.parse('2026-07-01T10:00:00Z');

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'aw-events-'));
  events = join(dir, 'events');
  mkdirSync(events);
  store = await openSqliteStore(join(dir, 'agentwire.db'));
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const deps = (over: Partial<Parameters<typeof scanFolder>[0]> = {}) => ({
  dir: events,
  maxFileBytes: 1024,
  store: store.events,
  resolve: chatResolver({ ci: 'telegram:123456789' }, (c) => c === 'telegram'),
  knownAgent: (k: string) => k === 'claude',
  now: () => NOW,
  log: memoryLog().log,
  settleMs: 0,
  ...over,
});
const drop = (name: string, body: unknown) =>
  writeFileSync(join(events, name), typeof body === 'string' ? body : JSON.stringify(body));
const rejected = (name: string) => readFileSync(join(events, 'rejected', `${name}.error`), 'utf8');

describe('scanFolder', () => {
  it('stores a good file, then deletes it', async () => {
    drop('ci.json', { chat: 'ci', text: 'CI failed on main' });
    expect(await scanFolder(deps())).toEqual({ stored: 1, duplicate: 0, rejected: 0, waiting: 0 });
    expect(existsSync(join(events, 'ci.json'))).toBe(false);
    const [e] = await store.events.open();
    expect(e).toMatchObject({
      chat: 'telegram:123456789',
      source: 'file:ci.json',
      dueAt: NOW,
      state: 'waiting',
    });
    expect(e?.prompt).toContain('CI failed on main');
  });

  it('leaves names being written (dot names, other endings) alone', async () => {
    drop('.ci.json.tmp', '{"chat": "ci"');
    drop('ci.json.part', '{"chat"');
    expect(await scanFolder(deps())).toEqual({ stored: 0, duplicate: 0, rejected: 0, waiting: 0 });
    expect(readdirSync(events).sort()).toEqual(['.ci.json.tmp', 'ci.json.part']);
  });

  const bad: [string, () => void, RegExp][] = [
    ['not JSON', () => drop('x.json', 'CI failed'), /^not JSON/],
    ['an unknown target', () => drop('x.json', { chat: 'nobody', text: 'x' }), /not a name in targets/],
    ['an unknown channel', () => drop('x.json', { chat: 'fax:1', text: 'x' }), /not a channel/],
    [
      'too large',
      () => drop('x.json', { chat: 'ci', text: 'x'.repeat(2000) }),
      /larger than events.maxFileBytes \(1024/,
    ],
    [
      'not UTF-8',
      () => writeFileSync(join(events, 'x.json'), Buffer.from([0x7b, 0xff, 0xfe, 0x7d])),
      /not UTF-8/,
    ],
    [
      'a symlink (even to a good file)',
      () => {
        writeFileSync(join(dir, 'good.json'), JSON.stringify({ chat: 'ci', text: 'x' }));
        symlinkSync(join(dir, 'good.json'), join(events, 'x.json'));
      },
      /symbolic link/,
    ],
    ['a FIFO', () => execFileSync('mkfifo', [join(events, 'x.json')]), /not a regular file \(a FIFO\)/],
    ['a folder', () => mkdirSync(join(events, 'x.json')), /not a regular file \(a folder\)/],
  ];
  it.each(bad)('rejects %s: moved to rejected/ with the reason, nothing stored', async (_n, make, why) => {
    make();
    expect(await scanFolder(deps())).toEqual({ stored: 0, duplicate: 0, rejected: 1, waiting: 0 });
    expect(existsSync(join(events, 'x.json'))).toBe(false);
    expect(readdirSync(join(events, 'rejected')).sort()).toEqual(['x.json', 'x.json.error']);
    expect(rejected('x.json')).toMatch(why);
    expect(await store.events.open()).toEqual([]);
  });

  it('a fresh file that does not parse yet is left for a later scan (a writer may still be writing it)', async () => {
    drop('x.json', '{"chat": "ci", "te');
    expect(await scanFolder(deps({ settleMs: 60_000 }))).toEqual({
      stored: 0,
      duplicate: 0,
      rejected: 0,
      waiting: 1,
    });
    expect(existsSync(join(events, 'x.json'))).toBe(true);
    drop('x.json', JSON.stringify({ chat: 'ci', text: 'done writing' }));
    expect(await scanFolder(deps({ settleMs: 60_000 }))).toMatchObject({ stored: 1, waiting: 0 });
  });

  it('keeps an earlier rejected file of the same name', async () => {
    drop('x.json', 'one');
    await scanFolder(deps());
    drop('x.json', 'two');
    await scanFolder(deps());
    const names = readdirSync(join(events, 'rejected')).sort();
    expect(names).toEqual([`${NOW}-x.json`, `${NOW}-x.json.error`, 'x.json', 'x.json.error']);
    expect(readFileSync(join(events, 'rejected', 'x.json'), 'utf8')).toBe('one');
  });

  it('1,000 files dropped at once: each stored once, in order of time then name', async () => {
    const n = 1000;
    for (let i = 0; i < n; i++) {
      // Every tenth has a time earlier than now: those come first, by their time.
      const at = i % 10 === 0 ? { at: new Date(NOW - (n - i) * 1000).toISOString() } : {};
      drop(`e${String(i).padStart(4, '0')}.json`, { chat: 'ci', text: `event ${i}`, ...at });
    }
    // Two scans at once (a watch notice and the periodic rescan) must not store anything twice.
    const [a, b] = await Promise.all([scanFolder(deps()), scanFolder(deps())]);
    expect(a.stored + b.stored).toBe(n);
    expect(a.rejected + b.rejected).toBe(0);
    expect(readdirSync(events).filter((f) => f.endsWith('.json'))).toEqual([]);
    const open = await store.events.open();
    expect(open).toHaveLength(n);
    const order = open.map((e) => Number(/event (\d+)/.exec(e.prompt)?.[1]));
    const timed = order.slice(0, n / 10);
    expect(timed).toEqual([...timed].sort((x, y) => x - y));
    expect(timed.every((i) => i % 10 === 0)).toBe(true);
    const rest = order.slice(n / 10);
    expect(rest).toEqual([...rest].sort((x, y) => x - y));
    expect(new Set(order).size).toBe(n);
  });

  it('a file the relay stored but did not delete before a crash is not stored again', async () => {
    drop('ci.json', { chat: 'ci', text: 'once' });
    const body = readFileSync(join(events, 'ci.json'));
    // Stored, then "killed" before the delete: the store answers, the rm never happens.
    const keep = deps({
      store: {
        addAll: async (rows, now) => {
          const r = await store.events.addAll(rows, now);
          throw Object.assign(new Error('killed'), { stored: r });
        },
      },
    });
    await expect(scanFolder(keep)).rejects.toThrow('killed');
    expect(readFileSync(join(events, 'ci.json'))).toEqual(body);
    expect(await scanFolder(deps())).toEqual({ stored: 0, duplicate: 1, rejected: 0, waiting: 0 });
    expect(existsSync(join(events, 'ci.json'))).toBe(false);
    expect(await store.events.open()).toHaveLength(1);
  });

  it('the same name dropped again later is a new event', async () => {
    drop('nightly.json', { chat: 'ci', text: 'backup done' });
    await scanFolder(deps());
    drop('nightly.json', { chat: 'ci', text: 'backup done' });
    expect(await scanFolder(deps({ now: () => NOW + 86_400_000 }))).toMatchObject({ stored: 1 });
    expect(await store.events.open()).toHaveLength(2);
  });
});
