// Warm agents start at a lower CPU priority (runner/nice.ts): a real child started through the one
// stdio spawn helper with the pool's guard runs at nice 10, and so does the helper it starts; so
// does its session's scheduling group (autogroup), without which the nice weighs nothing against
// the relay.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AGENT_NICE, GROUP_RETRY_MS, GROUP_TRIES, lower, lowered } from '../../src/runner/nice.js';
import { startStdioChild } from '../../src/runner/spawn-stdio.js';

/** The nice value (19th field) of /proc/<pid>/stat; the name in parentheses may hold spaces. */
const niceOf = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
};
/**
 * `/autogroup-<n> nice <v>`: the session's scheduling group and its nice. Empty for a process
 * whose session never made one (no setsid since init, as in some containers): it is in the
 * kernel's root group, whose weight is fixed; `root` then, at nice 0.
 */
const autogroupOf = (pid: number) => {
  const text = readFileSync(`/proc/${pid}/autogroup`, 'utf8');
  if (text === '') return { group: 'root', nice: 0 };
  const m = /^(\S+) nice (-?\d+)/.exec(text);
  if (!m) throw new Error(`unreadable /proc/${pid}/autogroup: ${JSON.stringify(text)}`);
  return { group: m[1], nice: Number(m[2]) };
};
/** The kernel has autogroup scheduling (on or off, the file is there to read and write). */
const hasAutogroup = existsSync('/proc/self/autogroup');

describe('lowered', () => {
  it.skipIf(process.platform !== 'linux')('a warm process and what it starts run at nice 10', async () => {
    const watched: [number, string | undefined][] = [];
    // This process's own group before (whatever whoever started it set): the agent's lowering must
    // leave it as it is.
    const ownGroup = hasAutogroup ? autogroupOf(process.pid) : undefined;
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
      if (hasAutogroup) {
        // The agent leads a session of its own: its group is not this test's, and is lowered.
        expect(autogroupOf(s.child.pid).group).not.toBe(autogroupOf(process.pid).group);
        expect(autogroupOf(s.child.pid).nice).toBe(AGENT_NICE);
        expect(autogroupOf(helper)).toEqual(autogroupOf(s.child.pid));
        expect(autogroupOf(process.pid)).toEqual(ownGroup);
      }
    } finally {
      await s.child.stop(1000);
    }
  });

  it('a refused priority change still registers the process with the watchdog', () => {
    const watched: number[] = [];
    const refuse = () => {
      throw new Error('EACCES');
    };
    const g = lowered(
      { watch: (pid) => watched.push(pid), forget: () => {} },
      { nice: refuse, autogroup: () => Promise.reject(new Error('ENOENT')), wait: async () => {} },
    );
    g.watch(123);
    expect(watched).toEqual([123]);
  });

  it('leaves a sandboxed process (bwrap) as it is, its CLI lowers itself inside; the watchdog still knows it', async () => {
    const watched: string[] = [];
    const calls: string[] = [];
    const g = lowered(
      { watch: (pid, mark) => watched.push(`${pid} ${mark}`), forget: () => {} },
      {
        nice: (pid) => calls.push(`nice ${pid}`),
        autogroup: async (pid) => {
          calls.push(`autogroup ${pid}`);
        },
        wait: async () => {},
      },
    );
    g.watch(123, 'm1', true);
    g.watch(456, 'm2');
    // The group's write comes after the writes before it (lower's queue): settled by the next turn.
    await new Promise((r) => setImmediate(r));
    expect(calls).toEqual(['nice 456', 'autogroup 456']);
    expect(watched).toEqual(['123 m1', '456 m2']);
  });
});

describe('lower', () => {
  // Each setting is tried whatever became of the other: a kernel without autogroup still gets the
  // nice, a refused nice (another user's process) still tries the group.
  const cases: [string, boolean, boolean, string[]][] = [
    ['both allowed', false, false, ['nice 7 10', 'autogroup 7 10']],
    ['nice refused', true, false, ['nice 7 10', 'autogroup 7 10']],
    ['no autogroup', false, true, ['nice 7 10', 'autogroup 7 10']],
    ['both refused', true, true, ['nice 7 10', 'autogroup 7 10']],
  ];
  it.each(cases)('%s: both are tried, nothing thrown', async (_name, niceFails, groupFails, tried) => {
    const calls: string[] = [];
    const nice = (pid: number, p: number) => {
      calls.push(`nice ${pid} ${p}`);
      if (niceFails) throw new Error('EACCES');
    };
    const autogroup = async (pid: number, p: number) => {
      calls.push(`autogroup ${pid} ${p}`);
      if (groupFails) throw new Error('ENOENT');
    };
    await expect(lower(7, { nice, autogroup, wait: async () => {} })).resolves.toBeUndefined();
    expect(calls).toEqual(tried);
  });

  // The kernel takes one unprivileged autogroup change per 100 ms (EAGAIN otherwise): that one is
  // tried again after the pause; anything else (no autogroup, the process gone) ends it at once.
  const errno = (code: string) => Object.assign(new Error(code), { code });
  const retries: [string, string[], number, number][] = [
    ['taken at once', [], 1, 0],
    ['refused twice, then taken', ['EAGAIN', 'EAGAIN'], 3, 2],
    ['no autogroup (ENOENT)', ['ENOENT'], 1, 0],
    ['the process gone (ESRCH)', ['ESRCH'], 1, 0],
    ['refused, then the process gone', ['EAGAIN', 'ESRCH'], 2, 1],
    ['refused every time: gives up', Array(GROUP_TRIES + 5).fill('EAGAIN'), GROUP_TRIES, GROUP_TRIES - 1],
  ];
  it.each(retries)('group write %s', async (_name, failures, tries, waits) => {
    const left = [...failures];
    let tried = 0;
    const waited: number[] = [];
    await lower(7, {
      nice: () => {},
      autogroup: async () => {
        tried++;
        const code = left.shift();
        if (code) throw errno(code);
      },
      wait: async (ms) => {
        waited.push(ms);
      },
    });
    expect(tried).toBe(tries);
    expect(waited).toEqual(Array(waits).fill(GROUP_RETRY_MS));
  });

  it('writes one group at a time: a refused write is tried again before the next process is', async () => {
    const calls: number[] = [];
    let refuseOnce = true;
    const how = {
      nice: () => {},
      autogroup: async (pid: number) => {
        calls.push(pid);
        if (pid === 7 && refuseOnce) {
          refuseOnce = false;
          throw errno('EAGAIN');
        }
      },
      wait: async () => {},
    };
    await Promise.all([lower(7, how), lower(8, how)]);
    expect(calls).toEqual([7, 7, 8]);
  });
});
