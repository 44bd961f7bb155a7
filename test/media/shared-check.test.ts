// A relay's media folder shared or not with the other relays on the database (media/shared-check.ts),
// and the folders `store.sharedFolder` moves (config/paths.ts).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mediaRoot, resolvePaths, withSharedFolder } from '../../src/config/paths.js';
import { sharedFolderCheck, unsharedWith } from '../../src/media/shared-check.js';
import type { ProcessInfo } from '../../src/store/ownership.js';
import { tempDir } from '../helpers/tmp.js';
import { memoryLog } from '../queue/helpers.js';

const proc = (id: string, role = 'relay'): ProcessInfo => ({
  id,
  host: 'host-b',
  pid: 42,
  role,
  startedAt: 0,
  lastSeen: 0,
  fingerprint: 'f',
  schemaVersion: 1,
});

describe('unsharedWith', () => {
  const rows: [string, string[], string[], string[], string | undefined, string[]][] = [
    // name, live ids, markers seen, missed before, unshared with, missing now
    ['alone', ['me'], ['me'], [], undefined, []],
    ['the other marker seen', ['me', 'b'], ['me', 'b'], [], undefined, []],
    ['missing once (it may be starting): not yet', ['me', 'b'], ['me'], [], undefined, ['b']],
    ['missing twice: unshared', ['me', 'b'], ['me'], ['b'], 'b', ['b']],
    ['seen now after a miss', ['me', 'b'], ['me', 'b'], ['b'], undefined, []],
    ['my own marker missing is not a finding', ['me'], [], ['me'], undefined, []],
  ];
  it.each(rows)('%s', (_name, live, markers, before, want, missing) => {
    const r = unsharedWith(
      'me',
      live.map((id) => proc(id)),
      new Set(markers),
      new Set(before),
    );
    expect(r.other?.id).toBe(want);
    expect([...r.missing]).toEqual(missing);
  });
});

describe('sharedFolderCheck', () => {
  async function untilLines(lines: Record<string, unknown>[], n: number): Promise<void> {
    for (const end = Date.now() + 5_000; lines.length < n && Date.now() < end; )
      await new Promise((r) => setTimeout(r, 5));
  }

  it('says once, naming the other relay, when its marker never shows; removes its own at stop', async () => {
    const [dirA, dirB] = [tempDir('aw-media-a-'), tempDir('aw-media-b-')];
    const live = [proc('a'), proc('b'), proc('c', 'chat')];
    const { log, lines } = memoryLog();
    const a = sharedFolderCheck({ dir: dirA, me: 'a', processes: async () => live, log, everyMs: 5 });
    const b = sharedFolderCheck({
      dir: dirB,
      me: 'b',
      processes: async () => live,
      log: memoryLog().log,
      everyMs: 5,
    });
    await b.start();
    await a.start();
    await untilLines(lines, 1);
    const warned = () => lines.filter((l) => l.level === 40);
    expect(warned().map((l) => l.msg)).toEqual([
      `the media folder ${dirA} is not shared with the relay on host-b (pid 42): a chat that moves between them will not find its files; set store.sharedFolder to a folder every process reaches at the same path (docs/scale-out.md)`,
    ]);
    await a.stop();
    await b.stop();
    expect(existsSync(join(dirA, '.processes', 'a'))).toBe(false);
    expect(warned()).toHaveLength(1);
  });

  it('says nothing when both relays write into one folder', async () => {
    const dir = tempDir('aw-media-shared-');
    // `a` is listed once it has written its marker. Listed before, `b`'s rounds (every 5 ms here)
    // could miss a marker still being written twice, on a loaded machine, and rightly warn: CI did.
    const live = [proc('b')];
    const { log, lines } = memoryLog();
    const b = sharedFolderCheck({ dir, me: 'b', processes: async () => live, log, everyMs: 5 });
    const a = sharedFolderCheck({ dir, me: 'a', processes: async () => live, log, everyMs: 5 });
    await b.start();
    await a.start();
    live.push(proc('a'));
    let rounds = 0;
    const counting = sharedFolderCheck({
      dir,
      me: 'a2',
      processes: async () => {
        rounds++;
        return live;
      },
      log,
      everyMs: 5,
    });
    await counting.start();
    for (const end = Date.now() + 5_000; rounds < 5 && Date.now() < end; )
      await new Promise((r) => setTimeout(r, 5));
    expect(rounds).toBeGreaterThanOrEqual(5);
    await Promise.all([a.stop(), b.stop(), counting.stop()]);
    expect(lines.filter((l) => l.level === 40)).toEqual([]);
  });
});

describe('withSharedFolder', () => {
  it('moves the three media folders under the shared folder and nothing else', () => {
    const paths = resolvePaths({ AGENTWIRE_HOME: '/state' });
    expect(withSharedFolder(paths, undefined)).toBe(paths);
    const shared = withSharedFolder(paths, '/mnt/aw');
    expect(shared).toEqual({
      ...paths,
      inboundMedia: '/mnt/aw/media/inbound',
      stagedMedia: '/mnt/aw/media/staged',
      hostedMedia: '/mnt/aw/media/outbound',
    });
    expect(mediaRoot(shared)).toBe('/mnt/aw/media');
    expect(mediaRoot(paths)).toBe('/state/media');
  });
});
