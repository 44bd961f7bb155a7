// Resident memory of a process group, for /status and `agentwire status`: the sum of VmRSS over
// every process whose group is `pgid` (a warm agent leads its own group, and its helpers count
// too). Linux only (/proc); undefined elsewhere or when the group is gone.
import { readdirSync, readFileSync } from 'node:fs';

export function groupRssBytes(pgid: number, proc = '/proc'): number | undefined {
  let names: string[];
  try {
    names = readdirSync(proc);
  } catch {
    return undefined;
  }
  let total = 0;
  let found = false;
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const stat = read(`${proc}/${name}/stat`);
    if (stat === undefined || groupOf(stat) !== pgid) continue;
    const kb = vmRssKb(read(`${proc}/${name}/status`) ?? '');
    if (kb === undefined) continue;
    total += kb * 1024;
    found = true;
  }
  return found ? total : undefined;
}

/** The process group (5th field) of a /proc/<pid>/stat line; the name in parentheses may hold spaces. */
export function groupOf(stat: string): number | undefined {
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const g = Number(rest[2]);
  return Number.isInteger(g) ? g : undefined;
}

export function vmRssKb(status: string): number | undefined {
  const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  return m ? Number(m[1]) : undefined;
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * Resident memory of a process and its descendants, walked from the leader through
 * /proc/<pid>/task/<tid>/children: a few reads for a warm CLI and its helpers, where
 * groupRssBytes reads every process of the machine (about 4 ms at 140 processes, too long to run
 * between turns while webhooks wait). Falls back to the group scan where the kernel has no
 * `children` file. Undefined when the process is gone or not on Linux.
 */
export function treeRssBytes(pid: number, proc = '/proc'): number | undefined {
  if (read(`${proc}/${pid}/task/${pid}/children`) === undefined) return groupRssBytes(pid, proc);
  let total = 0;
  let found = false;
  const seen = new Set<number>();
  const todo = [pid];
  for (let p = todo.pop(); p !== undefined; p = todo.pop()) {
    if (seen.has(p)) continue;
    seen.add(p);
    const kb = vmRssKb(read(`${proc}/${p}/status`) ?? '');
    if (kb === undefined) continue;
    total += kb * 1024;
    found = true;
    let tids: string[] = [];
    try {
      tids = readdirSync(`${proc}/${p}/task`);
    } catch {}
    for (const tid of tids) {
      const kids = read(`${proc}/${p}/task/${tid}/children`) ?? '';
      for (const k of kids.split(' ')) if (/^\d+$/.test(k)) todo.push(Number(k));
    }
  }
  return found ? total : undefined;
}
