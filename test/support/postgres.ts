// A throwaway PostgreSQL cluster for the PostgreSQL suites (npm run test:postgres): initdb in a fresh
// temp folder, the server listening only on a Unix socket in that folder (no TCP port to collide
// with another run), and everything removed by `stop`. initdb refuses to run as root, and this
// machine and CI run the tests as root: then the cluster is made and run by an unprivileged user
// (`nobody`, or a system user made for it when that is missing), with the folder handed to it.
import { execFile } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface PgCluster {
  /** A connection URL for the `postgres` superuser's default database. */
  url: string;
  /** Stops the server and removes its folder. */
  stop(): Promise<void>;
  /**
   * Stops the server, keeping its data (a database going away under a relay): a fast shutdown, which
   * ends every session at once but writes what was committed. Not `immediate`: this cluster runs
   * with synchronous_commit off, so a crash-like stop would lose the last commits, which no real
   * server configured for durability does.
   */
  pause(): Promise<void>;
  /** Starts the paused server again on the same socket and data. */
  resume(): Promise<void>;
}

/** The folder of Debian's newest installed PostgreSQL, or AGENTWIRE_PG_BIN. */
export function pgBinDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.AGENTWIRE_PG_BIN) return env.AGENTWIRE_PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!versions[0])
    throw new Error(
      'PostgreSQL is not installed: the PostgreSQL suites need initdb and pg_ctl (Debian: apt-get install postgresql, or set AGENTWIRE_PG_BIN)',
    );
  return join(root, versions[0], 'bin');
}

interface Account {
  uid: number;
  gid: number;
}

/** The uid and gid of `name` from /etc/passwd, if it is there. */
function account(name: string): Account | undefined {
  for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
    const [user, , uid, gid] = line.split(':');
    if (user === name && uid && gid) return { uid: Number(uid), gid: Number(gid) };
  }
  return undefined;
}

/** Who runs the cluster: ourselves, unless we are root (initdb refuses root). */
async function clusterAccount(): Promise<Account | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const found = account('nobody') ?? account('agentwire-pg');
  if (found) return found;
  await run('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', 'agentwire-pg']);
  const made = account('agentwire-pg');
  if (!made) throw new Error('could not make a user to run PostgreSQL as (initdb refuses root)');
  return made;
}

/** True when every folder above `dir` lets others through (the cluster's user must reach it). */
function traversable(dir: string): boolean {
  for (let d = dir; d !== dirname(d); d = dirname(d)) if ((statSync(d).mode & 0o001) === 0) return false;
  return true;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Starts a cluster in a new temp folder; `stop` removes it. */
export async function startPostgres(): Promise<PgCluster> {
  const bin = pgBinDir();
  const who = await clusterAccount();
  // The test run's own temp folder is private to root; another user needs a folder it can reach.
  const base = who && !traversable(tmpdir()) ? '/tmp' : tmpdir();
  const dir = mkdtempSync(join(base, 'aw-pg-'));
  const data = join(dir, 'data');
  const as = who ? { uid: who.uid, gid: who.gid } : {};
  if (who) chownSync(dir, who.uid, who.gid);
  chmodSync(dir, 0o700);
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C', HOME: dir };
  const remove = () => rmSync(dir, { recursive: true, force: true });
  // No TCP listener; fsync off: a test cluster need not survive a power cut.
  const opts = `-k ${dir} -c listen_addresses= -c fsync=off -c full_page_writes=off -c synchronous_commit=off -c max_connections=100`;
  const pgStart = () =>
    run(
      join(bin, 'pg_ctl'),
      ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '60', '-o', opts, 'start'],
      {
        ...as,
        env,
        cwd: dir,
      },
    );
  try {
    await run(
      join(bin, 'initdb'),
      ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-locale', '-N'],
      {
        ...as,
        env,
        cwd: dir,
      },
    );
    await pgStart();
  } catch (err) {
    remove();
    throw new Error(`could not start a PostgreSQL test cluster: ${(err as Error).message}`);
  }
  // A run that ends without its teardown (an uncaught error, process.exit) must not leave a server
  // behind: on exit, the postmaster is told to quit at once (SIGQUIT, synchronous) and the folder goes.
  // A run killed outright (SIGKILL) still leaves one, in a folder named aw-pg-* in the temp folder.
  const onExit = () => {
    try {
      const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      if (pid > 0) {
        process.kill(pid, 'SIGQUIT');
        // Exit handlers cannot await: wait synchronously (bounded) until it is gone, or its last
        // writes would land in the folder after it was removed.
        const tick = new Int32Array(new SharedArrayBuffer(4));
        for (const until = Date.now() + 5_000; Date.now() < until && alive(pid); )
          Atomics.wait(tick, 0, 0, 20);
      }
    } catch {
      // not running any more
    }
    remove();
  };
  process.once('exit', onExit);
  return {
    url: `postgresql://postgres@${encodeURIComponent(dir)}/postgres`,
    pause: async () => {
      await run(join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop'], { ...as, env, cwd: dir });
    },
    resume: async () => {
      await pgStart();
    },
    stop: async () => {
      process.removeListener('exit', onExit);
      try {
        await run(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop'], {
          ...as,
          env,
          cwd: dir,
        });
      } finally {
        remove();
      }
    },
  };
}
