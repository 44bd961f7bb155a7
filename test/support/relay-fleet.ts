// Several built relays (`agentwire relay`, dist/) on one PostgreSQL database and one config, as
// several machines behind one webhook URL would be: each its own state folder (its lock, control
// socket and log) and its own webhook port, everything else the same. The fake claude they run logs
// to one shared file, with the PID of the relay that started each run (`ppid`), so a test can tell
// a re-run after a kill from a run made twice. Twilio's REST API is the one fake all of them reply
// through. Needs `npm run build`.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callControl } from '../../src/control/client.js';
import {
  type FakeTwilio,
  fakeTwilioSection,
  startFakeTwilio,
} from '../channels/twilio/helpers/fake-twilio.js';
import {
  alive,
  completeLines,
  type FakeEvent,
  freePort,
  type Home,
  killOrphanGroup,
  MAIN,
  makeHome,
  type Proc,
  spawnNode,
} from '../e2e/helpers.js';
import { killRelay } from '../stress/helpers.js';
import { queryRows } from './postgres-db.js';

export interface Fleet {
  fake: FakeTwilio;
  homes: Home[];
  /** Each relay's webhook URL, by index. */
  urls: string[];
  /** The running process of each relay, by index (undefined while it is down). */
  procs: (Proc | undefined)[];
  /** PIDs of relays this fleet killed with SIGKILL. */
  killed: Set<number>;
  /** Every relay process started, in order: its index, PID and when it was spawned and killed. */
  history: { index: number; pid: number; startedAt: number; killedAt?: number }[];
  /** Relay `i`'s log lines (JSON, every process it ran), for a failing test to show. */
  logs(i: number): Record<string, unknown>[];
  /** The fake claude's start/end events, from every relay. */
  events(): FakeEvent[];
  start(i: number): Promise<Proc>;
  /** SIGKILL relay `i`, wait until it is gone, and stop the runs it left behind. */
  kill(i: number): Promise<void>;
  /** SIGTERM relay `i` and wait for its exit code. */
  stop(i: number): Promise<number | null>;
  /** Stops everything and removes every folder. */
  close(): Promise<void>;
}

/**
 * `n` relays on the database at `url`, none started yet. `extra` is merged over each one's config
 * (the same for all): set `queue`, `heartbeat` and so on there.
 */
export async function makeFleet(url: string, n: number, extra: Record<string, unknown> = {}): Promise<Fleet> {
  const fake = await startFakeTwilio();
  const shared = mkdtempSync(join(tmpdir(), 'aw-fleet-'));
  const fakeLog = join(shared, 'fake.jsonl');
  const homes: Home[] = [];
  const urls: string[] = [];
  for (let i = 0; i < n; i++) {
    const port = await freePort();
    homes.push(
      makeHome({
        twilio: fakeTwilioSection(fake, port, { allowFrom: ['*'] }),
        console: { enabled: false },
        // The fake claude keeps its sessions in one folder all relays reach (FAKE_SESSIONS below), as
        // shared agent state would: a chat that moves resumes, with no "context was reset" notice.
        store: { engine: 'postgres', url, sharedAgentState: true },
        ...extra,
        agent: {
          env: { FAKE_LOG: fakeLog, FAKE_SESSIONS: join(shared, 'sessions') },
          ...((extra.agent as object) ?? {}),
        },
      }),
    );
    // Info: a failing test shows what each relay said about the chats it took and gave up.
    (homes[i] as Home).env.AGENTWIRE_LOG_LEVEL = 'info';
    urls.push(`http://127.0.0.1:${port}/twilio/inbound`);
  }
  const procs: (Proc | undefined)[] = homes.map(() => undefined);
  const killed = new Set<number>();
  const history: Fleet['history'] = [];
  const events = () => readEvents(fakeLog);
  // Runs a killed relay left behind, still going: started by it, not ended, and still our fake (a
  // PID the machine gave to another process since is left alone).
  const orphans = (relayPid?: number) => {
    const all = readEvents(fakeLog);
    const ended = new Set(all.filter((e) => e.ev === 'end').map((e) => e.pid));
    for (const e of all)
      if (
        (e.ev === 'start' || e.ev === 'tools') &&
        (relayPid === undefined || e.ppid === relayPid) &&
        !ended.has(e.pid) &&
        alive(e.pid) &&
        isFake(e.pid)
      )
        killOrphanGroup(e.pid);
  };
  let closed = false;
  const starting = new Set<Proc>();
  const fleet: Fleet = {
    fake,
    homes,
    urls,
    procs,
    killed,
    history,
    logs: (i) => {
      const dir = join((homes[i] as Home).dir, 'logs');
      if (!existsSync(dir)) return [];
      return readdirSync(dir)
        .flatMap((name) => readFileSync(join(dir, name), 'utf8').split('\n'))
        .filter(Boolean)
        .flatMap((l) => {
          // A relay killed mid-write leaves half a line: skipped, these lines only explain a failure.
          try {
            return [JSON.parse(l) as Record<string, unknown>];
          } catch {
            return [];
          }
        });
    },
    events,
    start: async (i) => {
      if (closed) throw new Error(`relay ${i} not started: the fleet is closed`);
      const home = homes[i] as Home;
      const p = spawnNode([MAIN, 'relay'], home.env);
      starting.add(p);
      history.push({ index: i, pid: p.child.pid ?? -1, startedAt: Date.now() });
      // Up once its control socket answers. Bounded generously: a relay starting on a machine busy
      // with two others and their agents can take well over 20 s, and one answer well over 2 s (a
      // caller that gave up closed the socket the relay identifies it by, and is refused).
      const exited = p.exit.then(() => true);
      for (const end = Date.now() + 90_000; Date.now() < end; ) {
        if (await Promise.race([exited, new Promise<false>((r) => setTimeout(() => r(false), 50))]))
          throw new Error(`relay ${i} exited at start: ${p.stderr()}`);
        if (closed) throw new Error(`relay ${i} stopped while starting: the fleet closed`);
        if (
          (await callControl(join(home.dir, 'relay.sock'), 'status', undefined, { timeoutMs: 15_000 })).ok
        ) {
          starting.delete(p);
          procs[i] = p;
          return p;
        }
      }
      starting.delete(p);
      p.child.kill('SIGKILL');
      throw new Error(`relay ${i} did not start within 90 s: ${p.stderr()}`);
    },
    kill: async (i) => {
      const p = procs[i];
      if (!p) return;
      procs[i] = undefined;
      if (p.child.pid) killed.add(p.child.pid);
      const h = history.find((x) => x.pid === p.child.pid);
      if (h) h.killedAt = Date.now();
      await killRelay(p);
      orphans(p.child.pid);
    },
    stop: async (i) => {
      const p = procs[i];
      if (!p) return null;
      procs[i] = undefined;
      p.child.kill('SIGTERM');
      return (await p.exit).code;
    },
    close: async () => {
      closed = true;
      // A relay still starting (a restart in the background) is not in `procs` yet: stopped too.
      for (const p of [...starting, ...procs.splice(0)])
        if (p && p.child.exitCode === null && p.child.signalCode === null) await killRelay(p);
      orphans();
      await fake.close();
      for (const h of homes) h.cleanup();
      rmSync(shared, { recursive: true, force: true });
    },
  };
  return fleet;
}

function readEvents(file: string): FakeEvent[] {
  if (!existsSync(file)) return [];
  // A fake may be appending right now: a last line without its newline is left for the next read.
  return completeLines(readFileSync(file, 'utf8')).map((l) => JSON.parse(l) as FakeEvent);
}

/** Whether `pid` runs one of the fake CLIs (its command line names the fixture). */
function isFake(pid: number): boolean {
  try {
    return /fake-(claude|tool-cli)\.mjs/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
  } catch {
    return false;
  }
}

/** Which relay of the fleet holds the lead `name` now, by its index (-1: none). */
export async function leaderOf(f: Fleet, url: string, name: string): Promise<number> {
  const [r] = await queryRows<{ pid: number }>(
    url,
    `SELECT p.pid FROM leader_leases l JOIN processes p ON p.id = l.holder
      WHERE l.name = $1 AND l.expires_at > (extract(epoch from clock_timestamp()) * 1000)::bigint`,
    [name],
  );
  return f.procs.findIndex((p) => p !== undefined && p.child.pid === r?.pid);
}

export const schedulerLeader = (f: Fleet, url: string): Promise<number> => leaderOf(f, url, 'scheduler');
