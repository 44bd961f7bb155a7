// The bubblewrap sandbox as data, and the one pure function that turns it into bwrap's argv. The
// sandbox's root is built from nothing: the CLI sees only what the plan binds, so the relay's
// state folder, database, config, sockets and other chats' folders are absent by construction, not
// hidden one by one. `hidden` is the belt to those braces: a plan that would bind one of them, or a
// folder holding one, is refused with a sentence instead of run (a PATH entry of `~`, a workspace
// set to the state folder itself).
import { isAbsolute, normalize, sep } from 'node:path';
import { loweringSteps, SH } from './lowering-shell.js';

/** Whether an agent's CLI runs inside bubblewrap (`agent.sandbox`). */
export type SandboxMode = 'none' | 'bwrap';

export interface SandboxPlan {
  type: 'bwrap';
  /** bwrap's absolute path, found when the plan was made. */
  bwrap: string;
  /** Bound read-write at the same path: the workspace, the CLI's own state folders. */
  rw: readonly string[];
  /** Bound read-only at the same path: /usr, the CLI's install, node, /etc/ssl… */
  ro: readonly string[];
  /** Bound read-only when they exist (/etc files that vary between systems). */
  roTry: readonly string[];
  /** Symlinks made inside (merged-/usr systems: /bin → usr/bin). */
  links: readonly { path: string; target: string }[];
  /** Empty private folders (memory-backed): HOME, so a CLI's stray writes there stay inside. */
  tmpfs: readonly string[];
  /** Never bound, nor any folder that holds one: the relay's state folder, config, sockets. */
  hidden: readonly string[];
  /** Variables set inside over the child's environment (TMPDIR=/tmp: the host's is not there). */
  setEnv: Readonly<Record<string, string>>;
}

/** A run's sandbox as the spawn helpers take it: a plan, or why there can be none (never run bare). */
export type Sandbox = { type: 'bwrap'; plan: SandboxPlan } | { type: 'unavailable'; error: string };

export type Launch = { file: string; args: readonly string[] };

export type SandboxArgv = { ok: true; launch: Launch } | { ok: false; error: string };

/**
 * Pure: the plan with one chat's received files shown read-only (`<state>/media/inbound/<chat>`). Added
 * per run where the chat is known, never in the agent's plan: a folder holding every chat's files
 * would let one chat's run read another's attachments.
 */
export function withChatMedia(plan: SandboxPlan, dir: string): SandboxPlan {
  return plan.ro.includes(dir) ? plan : { ...plan, ro: [...plan.ro, dir] };
}

/** `inner` is under `outer`, or is it. */
export function within(inner: string, outer: string): boolean {
  const a = normalize(inner);
  const b = normalize(outer);
  return a === b || a.startsWith(b.endsWith(sep) ? b : b + sep);
}

/**
 * Pure: bwrap's argv that runs `launch` inside the plan. Mounts go parents first (a tmpfs HOME, then
 * the state folders under it), whatever order the plan lists them in.
 */
export function bwrapArgv(
  plan: SandboxPlan,
  launch: Launch,
  cwd?: string,
  opts: { readyFd?: number; nice?: number } = {},
): SandboxArgv {
  const mounts: { path: string; args: string[] }[] = [];
  const bad = (path: string, what: string) =>
    `the sandbox would ${what} ${path}, which holds ${plan.hidden.find((h) => within(h, path))} (the relay's own files); set the agent's cwd, HOME or PATH elsewhere`;
  for (const [list, flag, what] of [
    [plan.rw, '--bind', 'bind'],
    [plan.ro, '--ro-bind', 'show'],
    [plan.roTry, '--ro-bind-try', 'show'],
  ] as const) {
    for (const p of list) {
      if (!isAbsolute(p)) return { ok: false, error: `the sandbox can only bind absolute paths, not "${p}"` };
      if (plan.hidden.some((h) => within(h, p))) return { ok: false, error: bad(p, what) };
      mounts.push({ path: p, args: [flag, p, p] });
    }
  }
  for (const t of plan.tmpfs) mounts.push({ path: t, args: ['--tmpfs', t] });
  for (const l of plan.links) mounts.push({ path: l.path, args: ['--symlink', l.target, l.path] });
  if (cwd !== undefined && !plan.rw.some((r) => within(cwd, r)) && !plan.ro.some((r) => within(cwd, r)))
    return { ok: false, error: `the working folder ${cwd} is not inside the sandbox` };
  // Stable: at equal depth the plan's order (a tmpfs listed after the binds it would cover is not).
  const depth = (p: string) => normalize(p).split(sep).filter(Boolean).length;
  const ordered = mounts
    .map((m, i) => ({ ...m, i }))
    .sort((a, b) => depth(a.path) - depth(b.path) || tmpfsFirst(a, b) || a.i - b.i);
  const args = [
    // Every namespace bwrap knows, the network given back: the CLI must reach its model provider.
    '--unshare-all',
    '--share-net',
    // The sandbox ends with the relay's child (bwrap itself): a kill of the run reaches everything.
    '--die-with-parent',
    // No controlling terminal to push keystrokes into (TIOCSTI); the CLIs read pipes, not a tty.
    '--new-session',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--tmpfs',
    '/tmp',
    ...ordered.flatMap((m) => m.args),
    ...Object.entries(plan.setEnv).flatMap(([k, v]) => ['--setenv', k, v]),
    ...(cwd !== undefined ? ['--chdir', cwd] : []),
    '--',
    ...shim(opts),
    launch.file,
    ...launch.args,
  ];
  return { ok: true, launch: { file: plan.bwrap, args } };
}

/**
 * The shell step before the CLI inside the sandbox, or none. `readyFd`: once bwrap made the
 * sandbox, it says so on that fd and becomes the CLI (same pid, the pipe closed for it). bwrap's own
 * status pipe cannot say this: it reports the child's pid before the child sets up its mounts, so
 * a sandbox that fails still looks started there.
 *
 * `nice`: the CLI runs lowered (runner/nice.ts says why), by the shell before it becomes the CLI.
 * bwrap's --new-session put it in a session, so a scheduling group (autogroup), of its own, which
 * only a process inside can lower (core/lowering-shell.ts).
 */
function shim(opts: { readyFd?: number; nice?: number }): string[] {
  if (opts.readyFd === undefined && opts.nice === undefined) return [];
  const fd = opts.readyFd;
  const steps = opts.nice === undefined ? [] : loweringSteps(Math.trunc(opts.nice), fd);
  steps.push(fd === undefined ? 'exec "$@"' : `printf . >&${fd} && exec "$@" ${fd}>&-`);
  return [SH, '-c', steps.join('; '), 'sh'];
}

function tmpfsFirst(a: { args: string[] }, b: { args: string[] }): number {
  return (a.args[0] === '--tmpfs' ? 0 : 1) - (b.args[0] === '--tmpfs' ? 0 : 1);
}

/** bwrap's own error lines ("bwrap: …"), which it prints before exiting 1 when it cannot set up. */
export function bwrapError(stderr: string): string | undefined {
  return /^bwrap: .+$/m.exec(stderr)?.[0];
}
