// What one agent's sandbox shows (core/sandbox.ts turns it into bwrap's argv). Read-write: the
// workspace, the CLI's own state folders, agentwire's state for this kind (pi's sessions) with its
// tool files hidden under an empty folder. Read-only: /usr and the root links into it, the /etc
// files a program needs to resolve names and check certificates, the CLI's install, node's, the
// PATH. One chat's received files are added per run (core/sandbox.ts withChatMedia), never here: the
// plan is the agent's, for every chat. A private /tmp and HOME. Nothing else: the relay's state folder, database, config and sockets are not in it. `makeSandbox` finds
// the real paths (symlinks, installs) and makes the state folders; the assembly is pure.
import { existsSync, lstatSync, mkdirSync, readlinkSync, realpathSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, sep } from 'node:path';
import { onPath } from '../core/on-path.js';
import type { SandboxPlan } from '../core/sandbox.js';
import { within } from '../core/sandbox.js';
import { cliState, stateFolders } from './sandbox-state.js';
import { TOOLS_SOCKET_ENV, toolRoot } from './tool-server.js';
import type { AgentKind, ToolServer } from './types.js';

/** Root entries that are links into /usr on merged-/usr systems, or folders elsewhere. */
const ROOT_DIRS = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];
/** What name lookup, TLS, users and time zones read; bound when present. */
const ETC = [
  '/etc/ssl',
  '/etc/ca-certificates',
  '/etc/pki',
  '/etc/resolv.conf',
  '/etc/hosts',
  '/etc/host.conf',
  '/etc/gai.conf',
  '/etc/nsswitch.conf',
  '/etc/passwd',
  '/etc/group',
  '/etc/localtime',
  '/etc/ld.so.cache',
  '/etc/alternatives',
];

export interface SandboxInputs {
  kind: AgentKind;
  bwrap: string;
  /** The agent's working folder. */
  cwd: string;
  /** The run's environment (HOME, PATH and the CLI's own variables). */
  env: Readonly<Record<string, string | undefined>>;
  /** agentwire's per-kind state folder (`<state>/agents/<kind>`). */
  stateDir: string;
  /** Root entries: a link's target, or 'dir'. */
  root: Readonly<Record<string, string>>;
  /** The install folders of the CLI's program and of node (real paths). */
  installs: readonly string[];
  /** Existing PATH folders. */
  pathDirs: readonly string[];
  /** Never bound: the relay's state folder and config file. */
  hidden: readonly string[];
}

/** Pure: the plan from what makeSandbox found. */
export function sandboxPlan(i: SandboxInputs): SandboxPlan {
  const state = cliState(i.kind, i.env);
  const links = Object.entries(i.root)
    .filter(([, t]) => t !== 'dir')
    .map(([path, target]) => ({ path, target }));
  const rootDirs = Object.entries(i.root)
    .filter(([, t]) => t === 'dir')
    .map(([p]) => p);
  const ro = ['/usr', ...rootDirs, ...state.readFiles];
  const covered = (p: string) =>
    [...ro, ...links.map((l) => l.path)].some((r) => within(p, r)) || i.hidden.some((h) => within(h, p));
  for (const p of [...i.installs, ...i.pathDirs]) if (!covered(p) && !ro.includes(p)) ro.push(p);
  const rw = [i.cwd, ...state.dirs, ...state.files, i.stateDir];
  const home = i.env.HOME;
  const tmpfs = [toolRoot(i.stateDir)];
  // HOME is private and empty but for the state folders bound into it; not over a bound folder.
  if (home && isAbsolute(home) && ![...rw, ...ro].some((p) => within(home, p))) tmpfs.unshift(home);
  return {
    type: 'bwrap',
    bwrap: i.bwrap,
    rw: dedupe(rw),
    ro: dedupe(ro),
    roTry: ETC,
    links,
    tmpfs,
    hidden: i.hidden,
    setEnv: { TMPDIR: '/tmp' },
  };
}

/**
 * Pure: the plan with one process's or run's tools in it: agentwire's install and node (the MCP
 * helper runs inside), the tools socket (the one way out to the relay) and the tool files, read-only.
 */
export function withToolsIn(
  plan: SandboxPlan,
  server: Pick<ToolServer, 'env'>,
  installs: readonly string[],
  files: readonly string[],
): SandboxPlan {
  const socket = server.env[TOOLS_SOCKET_ENV];
  const covered = (p: string) => plan.ro.some((r) => within(p, r));
  const more = [...installs.filter((p) => !covered(p)), ...(socket ? [socket] : []), ...files];
  return { ...plan, ro: dedupe([...plan.ro, ...more]) };
}

const dedupe = (xs: readonly string[]): string[] => [...new Set(xs)];

export type MadeSandbox = { ok: true; plan: SandboxPlan } | { ok: false; error: string };

export interface SandboxPlaces {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  stateDir: string;
  command: readonly string[];
  hidden: readonly string[];
  /** Make the CLI's state folders when missing (false: only look, as `doctor` does). */
  createDirs?: boolean;
}

/** Finds bwrap and the installs, makes the CLI's state folders, and builds the plan. */
export function makeSandbox(kind: AgentKind, p: SandboxPlaces): MadeSandbox {
  const bwrap = findBwrap(p.env.PATH);
  if (!bwrap)
    return {
      ok: false,
      error:
        'the agent is set to run in the bwrap sandbox, but bwrap is not installed (Debian/Ubuntu: apt-get install bubblewrap); it will not run unsandboxed',
    };
  const state = cliState(kind, p.env);
  // Private, as resolveAgent makes the workspace: made here so bwrap does not make them 0755.
  if (p.createDirs !== false) {
    for (const d of [...stateFolders(state), toolRoot(p.stateDir)])
      mkdirSync(d, { recursive: true, mode: 0o700 });
    // A file the CLI would make on its first run must exist to be bound, else it is made in the
    // private HOME and lost with it. The only one (claude's ~/.claude.json) is JSON.
    for (const f of state.files) if (!existsSync(f)) writeFileSync(f, '{}\n', { mode: 0o600, flag: 'wx' });
  }
  const root: Record<string, string> = {};
  for (const d of ROOT_DIRS) {
    const st = lstatSync(d, { throwIfNoEntry: false });
    if (st?.isSymbolicLink()) root[d] = readlinkSync(d);
    else if (st?.isDirectory()) root[d] = 'dir';
  }
  const pathDirs = (p.env.PATH ?? '').split(delimiter).filter((d) => isAbsolute(d) && existsSync(d));
  const program = p.command[0] ? onPath(p.command[0], p.env.PATH) : undefined;
  const node = onPath('node', p.env.PATH);
  const installs = [program, node].filter((f): f is string => f !== undefined).map((f) => installOf(f));
  const plan = sandboxPlan({
    kind,
    bwrap,
    cwd: p.cwd,
    env: p.env,
    stateDir: p.stateDir,
    root,
    installs,
    pathDirs,
    hidden: p.hidden,
  });
  const through = throughLink(plan);
  return through ? { ok: false, error: through } : { ok: true, plan };
}

/**
 * bwrap binds what a path's links lead to: a working folder that is a link to the state folder
 * passes bwrapArgv's check on the path as written, so the real paths are checked here too.
 */
function throughLink(plan: SandboxPlan): string | undefined {
  const real = (f: string) => (existsSync(f) ? realpathSync(f) : f);
  const hidden = plan.hidden.map(real);
  for (const p of [...plan.rw, ...plan.ro]) {
    const r = real(p);
    // A path that is no link is bwrapArgv's to refuse, in its own words.
    const h = r === p ? undefined : hidden.find((x) => within(x, r));
    if (h)
      return `the sandbox would show ${p} (really ${r}), which holds ${h} (the relay's own files); set the agent's cwd, HOME or PATH elsewhere`;
  }
  return undefined;
}

/** The install folders of the tool server: its program (node) and agentwire's package. */
export function toolInstalls(server: Pick<ToolServer, 'command' | 'args'>): string[] {
  return [server.command, ...server.args.slice(0, 1)]
    .filter((f) => isAbsolute(f) && existsSync(f))
    .map((f) => installOf(f));
}

/**
 * The folder that holds a program and what it loads: the outermost `node_modules` on its real path
 * (an npm install keeps a CLI's platform binary in a sibling package), else its package's folder,
 * else the folder above its `bin`.
 */
export function installOf(file: string): string {
  const real = realpathSync(file);
  const parts = real.split(sep);
  const nm = parts.indexOf('node_modules');
  if (nm > 0) return parts.slice(0, nm + 1).join(sep);
  for (let d = dirname(real); d !== dirname(d); d = dirname(d))
    if (existsSync(join(d, 'package.json'))) return d;
  const dir = dirname(real);
  return dir.endsWith(`${sep}bin`) ? dirname(dir) : dir;
}

/** bwrap on the run's PATH, then the usual places (a relay started by systemd has a short PATH). */
export function findBwrap(path: string | undefined): string | undefined {
  return onPath('bwrap', `${path ?? ''}${delimiter}/usr/bin${delimiter}/usr/local/bin${delimiter}/bin`);
}
