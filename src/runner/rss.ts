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
