// No warm agent may outlive the relay, even when the relay is killed with SIGKILL and runs no exit
// hook. Node cannot set PR_SET_PDEATHSIG on a child, and an agent's own end-of-input check does not
// reach the helpers it started. So one tiny watchdog per relay holds the read end of a pipe from
// it; the relay writes "+<group>" for each long-lived process group it starts and "-<group>" when
// it ends. When the relay dies for any reason the kernel closes the pipe, the watchdog reads
// end-of-file and kills every group still listed, then exits. It costs one `sh` (about 1 MB) for
// the whole relay, not one per agent.
//
// The one exception to "no shell" (rule 3): a constant script, run as `sh -c SCRIPT` with argv. No
// text from a chat or an agent ever reaches it; the only input is group ids this file formats, and
// the script ignores any line that is not "+" or "-" followed by digits.
import { type ChildProcess, spawn } from 'node:child_process';
import type { Socket } from 'node:net';

export const REAPER_SCRIPT = `trap '' INT HUP TERM
groups=''
while IFS= read -r line; do
  id=\${line#?}
  case $id in ''|*[!0-9]*) continue;; esac
  case $line in
    +*) groups="$groups $id";;
    -*) kept=''; for g in $groups; do [ "$g" = "$id" ] || kept="$kept $g"; done; groups=$kept;;
  esac
done
for g in $groups; do kill -KILL -$g 2>/dev/null; done
`;

export interface Reaper {
  /** Kill this process group if the relay dies before it says otherwise. */
  watch(pid: number): void;
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
  const send = (line: string) => {
    // A pipe write with room in the buffer is done before this returns: a group is listed before
    // the relay can die right after starting it.
    if (open) stdin?.write(`${line}\n`);
  };
  return {
    watch: (pid) => send(`+${Math.trunc(pid)}`),
    forget: (pid) => send(`-${Math.trunc(pid)}`),
    close: () => {
      if (!open) return;
      open = false;
      stdin?.end();
    },
    pid: child?.pid,
  };
}
