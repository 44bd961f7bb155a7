// CPU and memory of live process groups, from /proc (Linux): what a warm agent process and every
// helper it started have used so far, read while they still run (a reaped group is gone from /proc).
import { readdirSync, readFileSync } from 'node:fs';
import { procCpuMs } from './stats.mjs';

const CLK_TCK = 100; // USER_HZ, as in stats.mjs

function statFields(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // After the command name, from the state: ppid 1, pgrp 2, utime 11, stime 12, cutime 13, cstime 14.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

function pids() {
  return readdirSync('/proc').filter((p) => /^\d+$/.test(p));
}

/**
 * The children of `pid` that are a relay's launcher (`agents.launcher`, on by default), whose
 * children the agent processes are. From the main thread's children list, which is the thread
 * that forks them.
 */
export function launchersOf(pid) {
  let kids = [];
  try {
    kids = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean);
  } catch {
    return [];
  }
  return kids.map(Number).filter((k) => {
    try {
      return readFileSync(`/proc/${k}/cmdline`, 'utf8').includes('launcher-process');
    } catch {
      return false; // ended meanwhile
    }
  });
}

/**
 * CPU so far, in ms, of the launcher of the relay running in this process: its own (the starts it
 * does for the relay) and that of the children it has reaped (the cold runs' CLIs), which reaches
 * this process's own reaped-children figure only once the launcher ends.
 */
export function launcherCpuMs() {
  let own = 0;
  let children = 0;
  for (const p of launchersOf(process.pid)) {
    try {
      own += procCpuMs(p);
      children += procCpuMs(p, { children: true });
    } catch {
      // ended meanwhile
    }
  }
  return { own, children };
}

/**
 * Processes this process started, itself or through its launcher, whose environment holds
 * `name=value`: the group leaders.
 */
export function leadersWith(name, value) {
  const parents = new Set([process.pid, ...launchersOf(process.pid)]);
  const found = [];
  for (const p of pids()) {
    try {
      if (!parents.has(Number(statFields(p)[1]))) continue;
      const env = `\0${readFileSync(`/proc/${p}/environ`, 'latin1')}`;
      if (env.includes(`\0${name}=${value}\0`)) found.push(Number(p));
    } catch {
      // gone, or not ours
    }
  }
  return found;
}

/** The processes of group `pgid`, with their own and their reaped children's CPU (ms) and RSS (KiB). */
export function groupUsage(pgid) {
  let cpuMs = 0;
  let rssKb = 0;
  let count = 0;
  for (const p of pids()) {
    try {
      const f = statFields(p);
      if (Number(f[2]) !== pgid) continue;
      cpuMs += ((Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 1000) / CLK_TCK;
      rssKb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0);
      count++;
    } catch {
      // exited between the listing and the read
    }
  }
  return { cpuMs, rssKb, count };
}
