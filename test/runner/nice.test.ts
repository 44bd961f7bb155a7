// Warm agents start at a lower CPU priority (runner/nice.ts): a real child started through the one
// stdio spawn helper with the pool's guard runs at nice 10, and so does the helper it starts.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AGENT_NICE, lowered } from '../../src/runner/nice.js';
import { startStdioChild } from '../../src/runner/spawn-stdio.js';

/** The nice value (19th field) of /proc/<pid>/stat; the name in parentheses may hold spaces. */
const niceOf = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
};

describe('lowered', () => {
  it.skipIf(process.platform !== 'linux')('a warm process and what it starts run at nice 10', async () => {
    const watched: [number, string | undefined][] = [];
    const s = await startStdioChild({
      file: process.execPath,
      args: [
        '-e',
        "const c = require('node:child_process').spawn('sleep', ['30'], { stdio: 'ignore' }); console.log(c.pid); setInterval(() => {}, 1000);",
      ],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      guard: lowered({ watch: (pid, mark) => watched.push([pid, mark]), forget: () => {} }),
    });
    if (s.type !== 'started') throw new Error(s.type);
    try {
      const helper = await new Promise<number>((resolve) =>
        s.child.stdout.once('data', (d) => resolve(Number(String(d).trim()))),
      );
      // The watchdog hears of the process with its run mark (it ends what left the group).
      expect(watched).toEqual([[s.child.pid, s.child.mark]]);
      expect(niceOf(s.child.pid)).toBe(AGENT_NICE);
      expect(niceOf(helper)).toBe(AGENT_NICE);
    } finally {
      await s.child.stop(1000);
    }
  });

  it('a refused priority change still registers the process with the watchdog', () => {
    const watched: number[] = [];
    const g = lowered({ watch: (pid) => watched.push(pid), forget: () => {} }, () => {
      throw new Error('EACCES');
    });
    g.watch(123);
    expect(watched).toEqual([123]);
  });
});
