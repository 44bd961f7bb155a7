// A CLI started lowered from its first instruction: a /bin/sh lowers its own session's scheduling
// group (autogroup) and nice, then becomes the CLI (exec: the same pid, the same pipes). The relay
// lowers an agent from outside too (runner/nice.ts says why both settings), but only once it has the
// pid, and in a burst that came after the CLI's first tens of ms of start-up at full weight, while
// the relay was answering webhooks (docs/performance.md, "Agents lowered from their exec"). Used for
// warm agents outside a sandbox (runner/sandbox-launch.ts) and inside one (core/sandbox.ts), where
// bwrap's own session is out of the relay's reach.

/** The shell the steps run in, outside a sandbox and inside one. */
export const SH = '/bin/sh';

/** What is started: a program and its arguments (core/sandbox.ts's Launch). */
type Launch = { file: string; args: readonly string[] };

/**
 * The shell steps that lower the session's group and the shell's nice to `n`. Each step that fails
 * is skipped and the CLI runs all the same.
 *
 * The group: the kernel takes one unprivileged autogroup change per 100 ms, machine-wide (EAGAIN
 * otherwise: proc_sched_autogroup_set_nice), so in a burst of starts a first try often fails. Then
 * a detached background shell tries again every 0.1 s, for about 5 s, while the CLI starts: the
 * group is the session's, so its write reaches the CLI too. It holds none of the run's pipes (`fd`:
 * one more to close for it).
 *
 * The nice: `nice(1)`, the only way a shell has, made absolute from the nice the shell inherited
 * (field 19 of /proc/self/stat), which is the relay's or its launcher's. No `nice` (a minimal
 * sandbox): the CLI runs at that nice.
 */
export function loweringSteps(n: number, fd?: number): string[] {
  const set = `echo ${n} >/proc/self/autogroup 2>/dev/null`;
  const detached = `</dev/null >/dev/null 2>&1${fd === undefined ? '' : ` ${fd}>&-`}`;
  const retry = `i=0; while [ $i -lt 50 ] && ! ${set}; do sleep 0.1 || break; i=$((i + 1)); done`;
  return [
    `[ -e /proc/self/autogroup ] && { ${set} || ( (${retry}) ${detached} & ); }`,
    // A function's arguments are its own: the CLI's, in "$@", stay as they are.
    'n=0',
    'f() { [ $# -ge 17 ] && n=${17}; }',
    'read -r s 2>/dev/null </proc/self/stat && f ${s##*) }',
    `[ "$n" -lt ${n} ] 2>/dev/null && command -v nice >/dev/null && set -- nice -n $((${n} - n)) "$@"`,
  ];
}

/** Pure: `launch` started through the shell steps, at nice `n` and its group too. */
export function loweredLaunch(launch: Launch, n: number): Launch {
  const script = [...loweringSteps(Math.trunc(n)), 'exec "$@"'].join('; ');
  return { file: SH, args: ['-c', script, 'sh', launch.file, ...launch.args] };
}
