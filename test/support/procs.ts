// Reading other processes from /proc (Linux), for tests that check who started what: a process's
// parent, the relay's launcher among its children, the processes whose environment carries a mark,
// a process's priorities.
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** The fields of /proc/<pid>/stat after the command name: state first, then ppid. */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** The nice value (19th field of /proc/<pid>/stat). */
export function niceOf(pid: number): number {
  return Number(statFields(pid)[16]);
}

/**
 * The nice of `pid`'s session's scheduling group; undefined on a kernel without autogroup. A
 * process whose session never made a group (no setsid since init, as in some containers) is in the
 * kernel's root group, its file empty: 0, the root group's fixed weight.
 */
export function groupNiceOf(pid: number): number | undefined {
  if (!existsSync('/proc/self/autogroup')) return undefined;
  const text = readFileSync(`/proc/${pid}/autogroup`, 'utf8');
  if (text === '') return 0;
  const nice = / nice (-?\d+)/.exec(text)?.[1];
  if (nice === undefined) throw new Error(`unreadable /proc/${pid}/autogroup: ${JSON.stringify(text)}`);
  return Number(nice);
}

/** The parent of `pid` (throws once it is gone). */
export function parentOf(pid: number): number {
  return Number(statFields(pid)[1]);
}

/** The direct children of `pid` that run the launcher's script (agents.launcher). */
export function launchersOf(pid: number): number[] {
  let kids: string[];
  try {
    kids = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean);
  } catch {
    return [];
  }
  return kids.map(Number).filter((k) => {
    try {
      return readFileSync(`/proc/${k}/cmdline`, 'latin1').includes('launcher-process');
    } catch {
      return false;
    }
  });
}

/** Live processes (not zombies) that `match` (which may read /proc; one that ends meanwhile is not). */
export function liveProcesses(match: (pid: number) => boolean): number[] {
  return readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .map(Number)
    .filter((pid) => {
      try {
        return match(pid) && statFields(pid)[0] !== 'Z';
      } catch {
        return false;
      }
    });
}

/** Live processes whose environment holds the variable `entry` (`NAME=value`). */
export function processesWithEnv(entry: string): number[] {
  return liveProcesses((pid) =>
    `\0${readFileSync(`/proc/${pid}/environ`, 'latin1')}`.includes(`\0${entry}\0`),
  );
}

/** argv of a node process that writes its pid to `file`, then sleeps a minute (to be stopped). */
export function sleeperArgv(file: string): string[] {
  return [
    process.execPath,
    '-e',
    'require("node:fs").writeFileSync(process.argv[1], String(process.pid)); setTimeout(() => {}, 60_000)',
    file,
  ];
}

/** The pid a sleeper wrote to `file`, once written (throws after `ms` without it). */
export async function sleeperPid(file: string, ms = 10_000): Promise<number> {
  for (const end = Date.now() + ms; Date.now() < end; ) {
    const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
    if (text !== '') return Number(text);
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no pid in ${file} after ${ms} ms`);
}
