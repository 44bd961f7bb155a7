// Who is calling the control socket, and whether it is an agent's run. The owner's controls (`send`
// to any number with any file, `status`, linking WhatsApp…) must not be in reach of an agent that a
// message talked into using them; the agent runs as the same user, so the socket's file mode cannot
// tell them apart, but the run mark every agent process carries (runner/run-mark.ts) can.
//
// Node cannot read a unix socket's peer credentials (SO_PEERCRED), so the caller proves its process
// id: it listens on an abstract socket of a random name, states its pid, that name and a secret in
// its first line, and the relay checks that the pid holds that listening socket (/proc/net/unix
// gives its inode, /proc/<pid>/fd the process's sockets) and that connecting to it hands back the
// same secret. Naming another process's socket fails: that process does not know this connection's
// secret. Then the pid's environment and its parents' are read for a run mark, so a shell or script
// an agent starts is refused too, even one that dropped the variable from its own environment.

import { readdir, readFile, readlink } from 'node:fs/promises';
import { connect } from 'node:net';
import { RUN_MARK_ENV } from '../runner/run-mark.js';
import type { Hello } from './protocol.js';

export type CallerCheck =
  | { type: 'owner'; pid: number }
  | { type: 'agent_run'; pid: number; markedPid: number }
  | { type: 'unproven'; reason: string };

export interface CallerOptions {
  procDir?: string;
  /** The relay's own mark, when an agent run started the relay: not a mark of our runs. */
  ownMark?: string | undefined;
  proofTimeoutMs?: number;
}

/** How far up the parent chain to look: deeper than any real shell nesting, short of a loop. */
const MAX_DEPTH = 64;

export async function checkCaller(hello: Hello, o: CallerOptions = {}): Promise<CallerCheck> {
  const proc = o.procDir ?? '/proc';
  const inode = await listeningInode(hello.name, proc);
  if (inode === undefined) return { type: 'unproven', reason: 'its proof socket is not listening' };
  if (!(await holdsSocket(hello.pid, inode, proc)))
    return { type: 'unproven', reason: `process ${hello.pid} does not hold its proof socket` };
  const secret = await readProof(hello.name, o.proofTimeoutMs ?? 3000);
  if (secret !== hello.secret) return { type: 'unproven', reason: 'its proof socket gave the wrong answer' };
  const markedPid = await markedInChain(hello.pid, proc, o.ownMark);
  return markedPid === undefined
    ? { type: 'owner', pid: hello.pid }
    : { type: 'agent_run', pid: hello.pid, markedPid };
}

/** The inode of the listening abstract socket `name`, from /proc/net/unix (`@name`, NUL-padded). */
async function listeningInode(name: string, proc: string): Promise<string | undefined> {
  const table = await readFile(`${proc}/net/unix`, 'utf8').catch(() => '');
  for (const line of table.split('\n')) {
    const cols = line.trim().split(/\s+/);
    // Num RefCount Protocol Flags Type St Inode Path; St 01 is "unconnected" (a listener).
    const path = cols[7]?.replace(/@+$/, '');
    if (path === `@${name}` && cols[5] === '01') return cols[6];
  }
  return undefined;
}

async function holdsSocket(pid: number, inode: string, proc: string): Promise<boolean> {
  const want = `socket:[${inode}]`;
  const fds = await readdir(`${proc}/${pid}/fd`).catch(() => [] as string[]);
  for (const fd of fds) if ((await readlink(`${proc}/${pid}/fd/${fd}`).catch(() => '')) === want) return true;
  return false;
}

function readProof(name: string, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    let buf = '';
    const s = connect(`\0${name}`);
    const done = (v: string | undefined) => {
      clearTimeout(timer);
      s.destroy();
      resolve(v);
    };
    const timer = setTimeout(() => done(undefined), timeoutMs);
    s.setEncoding('utf8');
    s.on('data', (d: string) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl >= 0) done(buf.slice(0, nl));
      else if (buf.length > 256) done(undefined);
    });
    s.on('error', () => done(undefined));
    s.on('close', () => done(undefined));
  });
}

/** The first process from `pid` up its parents whose environment holds a run mark not our own. */
export async function markedInChain(
  pid: number,
  proc = '/proc',
  ownMark?: string,
): Promise<number | undefined> {
  const seen = new Set<number>();
  for (let at = pid, depth = 0; at > 1 && depth < MAX_DEPTH && !seen.has(at); depth++) {
    seen.add(at);
    const mark = await runMarkOf(at, proc);
    if (mark !== undefined && mark !== ownMark) return at;
    const parent = await parentOf(at, proc);
    if (parent === undefined) break;
    at = parent;
  }
  return undefined;
}

/** The run mark in a process's environment (as it was at exec), or undefined. */
async function runMarkOf(pid: number, proc: string): Promise<string | undefined> {
  // Another user's process (root's sshd up the chain) cannot be read: it is not one of our runs.
  const env = await readFile(`${proc}/${pid}/environ`).catch(() => undefined);
  if (!env) return undefined;
  const prefix = `${RUN_MARK_ENV}=`;
  for (const entry of env.toString('utf8').split('\0'))
    if (entry.startsWith(prefix)) return entry.slice(prefix.length);
  return undefined;
}

async function parentOf(pid: number, proc: string): Promise<number | undefined> {
  const stat = await readFile(`${proc}/${pid}/stat`, 'utf8').catch(() => undefined);
  if (!stat) return undefined;
  // `pid (comm) state ppid …`: comm may hold spaces and parentheses, so split after the last ')'.
  const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  return Number.isSafeInteger(ppid) && ppid > 0 ? ppid : undefined;
}
