// Samples a process and everything under it from /proc (Linux), for the burst bench: the peak
// resident set of the whole tree, the process's own CPU (at the first and the last sample), and
// how many agent processes it started (its direct children whose environment carries a mark, and
// those of an unmarked direct child: the launcher that starts them with `agents.launcher` on;
// counted once per pid and start time).
// A sample reads /proc/<pid>/stat of every process on the machine; at 150 ms that is a few ms of
// this process's CPU per second, never the relay's. A real CLI lives a second or more, so a start is
// not missed; a shorter-lived child would be (the cold rows compare starts with turns to show it).
import { readdirSync, readFileSync } from 'node:fs';

const CLK_TCK = 100; // USER_HZ, as in stats.mjs
const PAGE_KB = 4; // x86-64 and arm64 Linux default page size

/** Every process's ppid, start time, own CPU (ms) and RSS (KiB); skips those that exit mid-read. */
function snapshot() {
  const procs = new Map();
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      // From the state on: ppid 1, utime 11, stime 12, starttime 19, rss 21 (pages).
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      procs.set(Number(p), {
        ppid: Number(f[1]),
        start: f[19],
        cpuMs: ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK,
        rssKb: Number(f[21]) * PAGE_KB,
      });
    } catch {
      // exited between the listing and the read
    }
  }
  return procs;
}

function hasMark(pid, mark) {
  try {
    return `\0${readFileSync(`/proc/${pid}/environ`, 'latin1')}`.includes(`\0${mark}\0`);
  } catch {
    return false;
  }
}

/**
 * Starts sampling the tree under `root` every `every` ms. `mark` is `NAME=value` in the agents'
 * environment. `stop()` takes a last sample and returns what was seen.
 */
export function sampleTree(root, mark, every = 150) {
  let peakRssKb = 0;
  let peakAgents = 0;
  let rootCpuMs = 0;
  let firstRootCpuMs;
  let samples = 0;
  const seen = new Set(); // `${pid}:${start}` of each process seen carrying the mark
  const sample = () => {
    const procs = snapshot();
    const kids = new Map();
    for (const [pid, p] of procs) {
      if (!kids.has(p.ppid)) kids.set(p.ppid, []);
      kids.get(p.ppid).push(pid);
    }
    const me = procs.get(root);
    if (!me) return;
    rootCpuMs = me.cpuMs;
    firstRootCpuMs ??= me.cpuMs;
    let rss = 0;
    const todo = [root];
    while (todo.length > 0) {
      const pid = todo.pop();
      rss += procs.get(pid)?.rssKb ?? 0;
      todo.push(...(kids.get(pid) ?? []));
    }
    let agents = 0;
    // Only a mark found is kept: a process seen between its fork and its exec still shows its
    // parent's environment, so one looked at too early is looked at again.
    const marked = (pid) => {
      const key = `${pid}:${procs.get(pid)?.start}`;
      if (!seen.has(key) && hasMark(pid, mark)) seen.add(key);
      return seen.has(key);
    };
    for (const pid of kids.get(root) ?? []) {
      if (marked(pid)) agents++;
      // Not an agent: maybe the launcher, whose children are.
      else for (const kid of kids.get(pid) ?? []) if (marked(kid)) agents++;
    }
    peakRssKb = Math.max(peakRssKb, rss);
    peakAgents = Math.max(peakAgents, agents);
    samples++;
  };
  sample();
  const timer = setInterval(sample, every);
  return {
    stop() {
      clearInterval(timer);
      sample();
      const starts = seen.size;
      return { peakRssKb, peakAgents, rootCpuMs, firstRootCpuMs, starts, samples };
    },
  };
}
