// A warm process's memory (runner/rss.ts): its tree, walked through /proc/<pid>/task/*/children,
// counts the process and its helpers, and only them.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { treeRssBytes } from '../../src/runner/rss.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A fake /proc: pid → [rss kB, child pids, process group]. */
function fakeProc(tree: Record<number, [number, number[], number]>, children = true): string {
  const root = mkdtempSync(join(tmpdir(), 'aw-proc-'));
  dirs.push(root);
  for (const [pid, [kb, kids, pgid]] of Object.entries(tree)) {
    mkdirSync(join(root, pid, 'task', pid), { recursive: true });
    writeFileSync(join(root, pid, 'status'), `Name:\tx\nVmRSS:\t   ${kb} kB\n`);
    writeFileSync(join(root, pid, 'stat'), `${pid} (a b) S 1 ${pgid} ${pgid} 0`);
    if (children) writeFileSync(join(root, pid, 'task', pid, 'children'), kids.map((k) => `${k} `).join(''));
  }
  return root;
}

describe('treeRssBytes', () => {
  it('sums the process and its descendants, not its parent, siblings or others', () => {
    const proc = fakeProc({
      1: [999, [10, 50], 1],
      10: [100, [11], 10],
      11: [20, [12], 10],
      12: [3, [], 99],
      50: [777, [], 50],
    });
    // 12 left the group (setsid) but is still a descendant: counted.
    expect(treeRssBytes(10, proc)).toBe((100 + 20 + 3) * 1024);
    expect(treeRssBytes(404, proc)).toBeUndefined();
  });

  it('without the kernel children files, falls back to the process group', () => {
    const proc = fakeProc({ 10: [100, [], 10], 11: [20, [], 10], 12: [3, [], 99] }, false);
    expect(treeRssBytes(10, proc)).toBe(120 * 1024);
  });

  it.skipIf(process.platform !== 'linux')('measures this process', () => {
    expect(treeRssBytes(process.pid)).toBeGreaterThan(10 * 1024 * 1024);
  });
});
