// No warm agent may outlive the relay, even when the relay is killed with SIGKILL and runs no exit
// hook. Node cannot set PR_SET_PDEATHSIG on a child, and an agent's own end-of-input check does not
// reach the helpers it started. So one tiny watchdog per relay holds the read end of a pipe from
// it; the relay writes "+<group>" for each long-lived process group it starts and "-<group>" when
// it ends, and likewise "+<mark>" / "-<mark>" for the process's run mark (run-mark.ts), which also
// finds what left the group (a `setsid` helper ignoring TERM). When the relay dies for any reason
// the kernel closes the pipe, the watchdog reads end-of-file, kills every group still listed and
// every process whose environment carries a listed mark, then exits. It costs one `sh` (about 1 MB)
// for the whole relay, not one per agent; the /proc scan (one `tr` per process) runs only then.
//
// The one exception to "no shell" (rule 3): a constant script, run as `sh -c SCRIPT` with argv. No
// text from a chat or an agent ever reaches it; the only input is group ids and marks this file
// formats, and the script ignores any line that is not "+" or "-" followed by digits or a mark.
import { type ChildProcess, spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import { isRunMark, RUN_MARK_ENV } from './run-mark.js';

// In the /proc scan, `2>/dev/null` comes before `< "$f"`: the shell opens redirections in order and
// reports a failed open (a process gone meanwhile, one it may not read) on the stderr in force.
export const REAPER_SCRIPT = `trap '' INT HUP TERM
groups=''
marks=''
while IFS= read -r line; do
  id=\${line#?}
  case $id in
    ''|*[!0-9a-f-]*) continue;;
    *[!0-9]*) [ \${#id} -eq 36 ] || continue; list=$marks;;
    *) list=$groups;;
  esac
  case $line in
    +*) list="$list $id";;
    -*) kept=''; for x in $list; do [ "$x" = "$id" ] || kept="$kept $x"; done; list=$kept;;
    *) continue;;
  esac
  case $id in *[!0-9]*) marks=$list;; *) groups=$list;; esac
done
for g in $groups; do kill -KILL -$g 2>/dev/null; done
[ -n "$marks" ] || exit 0
pass=0
while [ $pass -lt 3 ]; do
  pass=$((pass + 1)); found=''
  for f in /proc/[0-9]*/environ; do
    env=$(tr '\\000' '\\n' 2>/dev/null < "$f") || continue
    for m in $marks; do
      case "
$env
" in *"
${RUN_MARK_ENV}=$m
"*) p=\${f#/proc/}; kill -KILL "\${p%/environ}" 2>/dev/null && found=1;; esac
    done
  done
  [ -n "$found" ] || break
done
`;

export interface Reaper {
  /** Kill this process group (and what carries `mark`) if the relay dies before it says otherwise. */
  watch(pid: number, mark?: string): void;
  /** The group ended normally: never signal it (its id may be reused). */
  forget(pid: number): void;
  /** Ends the watchdog; groups still listed are killed, as on a crash. */
  close(): void;
  pid: number | undefined;
}

/** `onDeath`: the watchdog ended although `close` was not called (killed): start another. */
export function startReaper(shell = '/bin/sh', onDeath?: () => void): Reaper {
  let child: ChildProcess | undefined;
  try {
    child = spawn(shell, ['-c', REAPER_SCRIPT], {
      // Its own group, so a Ctrl-C to the relay's terminal does not end it before the relay.
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
      env: { PATH: '/usr/bin:/bin' },
      shell: false,
    });
  } catch {
    child = undefined;
  }
  const stdin = child?.stdin as Socket | null | undefined;
  // The watchdog must neither keep the relay alive nor die with an error the relay never reads.
  child?.on('error', () => {});
  stdin?.on('error', () => {});
  child?.once('exit', () => {
    if (open) {
      open = false;
      onDeath?.();
    }
  });
  child?.unref();
  stdin?.unref();
  let open = stdin != null;
  const marks = new Map<number, string>();
  const send = (line: string) => {
    // A pipe write with room in the buffer is done before this returns: a group is listed before
    // the relay can die right after starting it.
    if (open) stdin?.write(`${line}\n`);
  };
  return {
    watch: (pid, mark) => {
      send(`+${Math.trunc(pid)}`);
      if (mark !== undefined && isRunMark(mark)) {
        marks.set(pid, mark);
        send(`+${mark}`);
      }
    },
    forget: (pid) => {
      send(`-${Math.trunc(pid)}`);
      const mark = marks.get(pid);
      marks.delete(pid);
      if (mark !== undefined) send(`-${mark}`);
    },
    close: () => {
      if (!open) return;
      open = false;
      stdin?.end();
    },
    pid: child?.pid,
  };
}
