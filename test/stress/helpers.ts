// Plumbing for the stress suites: a seeded random (the seed is printed, and STRESS_SEED replays
// it), a real `agentwire relay` process with the Twilio channel pointed at the fake REST server, and
// a reader of a process's resident memory.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { callControl } from '../../src/control/client.js';
import type { QueueStatus } from '../../src/queue/queue.js';
import {
  type FakeTwilio,
  fakeTwilioSection,
  startFakeTwilio,
} from '../channels/twilio/helpers/fake-twilio.js';
import { freePort, type Home, MAIN, makeHome, type Proc, spawnNode, waitFor } from '../e2e/helpers.js';

export interface Rng {
  seed: number;
  /** Uniform in [0, 1). */
  next(): number;
  /** An integer in [0, n). */
  int(n: number): number;
  pick<T>(list: readonly T[]): T;
}

/** mulberry32: small, fast and good enough to pick sleeps and kill points reproducibly. */
export function seededRandom(name: string): Rng {
  const seed = Number(process.env.STRESS_SEED ?? Math.floor(Math.random() * 2 ** 31));
  console.log(`${name}: seed ${seed} (replay with STRESS_SEED=${seed})`);
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return { seed, next, int, pick: (list) => list[int(list.length)] as (typeof list)[number] };
}

/** The sender number of chat `c`: +1555 0100 000c. */
export const chatNumber = (c: number) => `+155501${String(c).padStart(5, '0')}`;

/** A state folder for a relay with only the Twilio channel, on `port`, replying through `fake`. */
function twilioHome(fake: FakeTwilio, port: number, extra: Record<string, unknown> = {}): Home {
  return makeHome({
    twilio: fakeTwilioSection(fake, port, { allowFrom: ['*'] }),
    // The web console would bind its fixed port; nothing here needs it.
    console: { enabled: false },
    ...extra,
  });
}

/** The fake REST server, a free port, a state folder for both, and the webhook URL there. */
export async function twilioSetup(
  extra: Record<string, unknown>,
): Promise<{ fake: FakeTwilio; home: Home; port: number; url: string }> {
  const fake = await startFakeTwilio();
  const port = await freePort();
  const home = twilioHome(fake, port, extra);
  return { fake, home, port, url: `http://127.0.0.1:${port}/twilio/inbound` };
}

/** Starts `agentwire relay` (the built binary) and waits until its control socket answers. */
export async function startRelayProcess(home: Home): Promise<Proc> {
  const p = spawnNode([MAIN, 'relay'], home.env);
  const socket = join(home.dir, 'relay.sock');
  let up = false;
  const exited = p.exit.then(() => true);
  // A bound, not a delay: 45 s like the other relay rigs (CI runs this suite beside the PostgreSQL
  // one, and a start took over 20 s there at load 23).
  const deadline = Date.now() + 45_000;
  while (!up && Date.now() < deadline) {
    if (await Promise.race([exited, new Promise<false>((r) => setTimeout(() => r(false), 20))])) break;
    up = (await callControl(socket, 'status', undefined, { timeoutMs: 2000 })).ok;
  }
  if (!up) {
    // Not handed to the caller, so nobody else would stop it: a relay that came up late ran on.
    await killRelay(p);
    throw new Error(`the relay did not start: ${p.stderr()}`);
  }
  return p;
}

/** Kills a relay process with SIGKILL and waits until it is gone. */
export async function killRelay(p: Proc): Promise<void> {
  p.child.kill('SIGKILL');
  await p.exit;
}

/** Resident memory of a live process in MB, now and at its peak (Linux /proc). */
export function memoryMb(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

/** Waits for `check`, failing with `what` and the seed when it never holds. */
export async function settle(check: () => boolean, what: string, rng: Rng, ms = 60_000): Promise<void> {
  if (!(await waitFor(check, ms))) throw new Error(`${what} (seed ${rng.seed})`);
}

/** Live (not zombie) child processes of `pid`, from /proc: a direct count of CLIs running. */
export function liveChildren(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // ended while we looked
    }
    // Fields after the command name: state, ppid, …
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(ppid) === pid && state !== 'Z') out.push(Number(entry));
  }
  return out;
}

/** Samples `measure` every `ms` until stopped; returns the largest value seen. */
export function sampleMax(measure: () => number, ms = 25): { stop: () => number } {
  let max = 0;
  const timer = setInterval(() => {
    max = Math.max(max, measure());
  }, ms);
  return {
    stop: () => {
      clearInterval(timer);
      return max;
    },
  };
}

/** Waits until the relay has no run active, nothing waiting and no reply unsent. */
export async function untilQuiet(home: Home, rng: Rng, ms = 60_000): Promise<void> {
  const socket = join(home.dir, 'relay.sock');
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const s = await callControl(socket, 'status');
    const q = s.ok ? (s.result as { queue: QueueStatus }).queue : undefined;
    if (q && q.active.length === 0 && Object.keys(q.waiting).length === 0 && q.unsentReplies === 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the relay did not become quiet (seed ${rng.seed})`);
}
