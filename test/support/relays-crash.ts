// The crash suite across relay processes, at any size: three built relays on one PostgreSQL
// database, messages of many chats arriving through their signed Twilio webhooks (each message to
// a relay picked at random, and to another when that one is down, as a load balancer would), while
// one relay at a time is SIGKILLed every few seconds and started again. Then, from the database, the
// fake Twilio API and the fake claude's own log: nothing lost, nothing duplicated (each reply sent
// once), each chat's replies in its order, and each message run once except re-runs after a kill.
// Used by test/postgres/relays-crash.test.ts (small) and test/scale-out/relays-crash.test.ts (full).
import pg from 'pg';
import { expect } from 'vitest';
import { NOTICE } from '../../src/core/reply.js';
import { smsParams, twilioPost } from '../channels/twilio/helpers/harness.js';
import type { FakeEvent } from '../e2e/helpers.js';
import { chatNumber, type Rng, seededRandom } from '../stress/helpers.js';
import type { Fleet } from './relay-fleet.js';

export interface CrashSize {
  chats: number;
  perChat: number;
  kills: number;
  /** Pause between kills, at random in [min, max] ms. */
  killGapMs: [number, number];
  /** Pause between two messages of one chat, at random in [0, max] ms. */
  sendGapMs: number;
  /** How long the whole run may take to become quiet after the last kill. */
  quietMs: number;
}

// Pacing of the workload only (a kill every few seconds, a chat's messages spread in time, a retry's
// pause); every wait for a state polls it with a bound.
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const textOf = (c: number, m: number) => `c${c}-m${String(m).padStart(2, '0')}`;
const sidOf = (c: number, m: number) => `SM${String(c).padStart(4, '0')}${String(m).padStart(28, '0')}`;

async function query<T>(url: string, sql: string): Promise<T[]> {
  const c = new pg.Client(url);
  await c.connect();
  try {
    return (await c.query(sql)).rows as T[];
  } finally {
    await c.end();
  }
}

/** Posts until a relay answers 200, trying another at random after a refusal or a dead socket. */
async function deliver(fleet: Fleet, rng: Rng, params: Record<string, string>): Promise<number> {
  let tries = 0;
  for (const end = Date.now() + 60_000; Date.now() < end; ) {
    const up = fleet.procs.flatMap((p, i) => (p ? [i] : []));
    const i = up.length > 0 ? rng.pick(up) : rng.int(fleet.urls.length);
    tries++;
    try {
      const res = await twilioPost(fleet.urls[i] as string, params);
      if (res.status === 200) return tries;
    } catch {
      // The relay died under the request, or is not listening yet: Twilio would try again.
    }
    await sleep(50 + rng.int(100));
  }
  throw new Error(`no relay took ${params.MessageSid} within 60 s (seed ${rng.seed})`);
}

export async function crashAcrossRelays(fleet: Fleet, url: string, size: CrashSize): Promise<void> {
  const rng = seededRandom('relays-crash');
  await Promise.all(fleet.homes.map((_, i) => fleet.start(i)));
  let redelivered = 0;
  const senders = Array.from({ length: size.chats }, async (_, c) => {
    for (let m = 0; m < size.perChat; m++) {
      const params = smsParams({ MessageSid: sidOf(c, m), From: chatNumber(c), Body: textOf(c, m) });
      redelivered += (await deliver(fleet, rng, params)) - 1;
      await sleep(rng.int(size.sendGapMs + 1));
    }
  });
  const started = Date.now();
  let kills = 0;
  const killer = (async () => {
    for (; kills < size.kills; kills++) {
      const [lo, hi] = size.killGapMs;
      await sleep(lo + rng.int(hi - lo + 1));
      const i = rng.int(fleet.homes.length);
      await fleet.kill(i);
      await fleet.start(i);
    }
  })();
  await Promise.all([...senders, killer]);
  const total = size.chats * size.perChat;

  // Quiet: every message finished and every reply sent, read from the database.
  const quiet = async () => {
    const [r] = await query<{ n: number; open: number; unsent: number }>(
      url,
      `SELECT (SELECT count(*)::int FROM inbox) AS n,
              (SELECT count(*)::int FROM inbox WHERE status NOT IN ('done', 'failed')) AS open,
              (SELECT count(*)::int FROM outbox WHERE status <> 'sent') AS unsent`,
    );
    return r?.n === total && r.open === 0 && r.unsent === 0;
  };
  const until = Date.now() + size.quietMs;
  while (!(await quiet()) && Date.now() < until) await sleep(100);
  const inbox = await query<{ message_id: string; status: string; tries: number }>(
    url,
    'SELECT message_id, status, tries FROM inbox ORDER BY id',
  );
  const outbox = await query<{ status: string }>(url, 'SELECT status FROM outbox');
  const events = fleet.events();
  const elapsed = Date.now() - started;

  // Runs per message, from the fake's log; a run before the last must have been cut by a kill.
  const runs = new Map<string, FakeEvent[]>();
  for (const e of events)
    if (e.ev === 'start' && e.prompt) runs.set(e.prompt, [...(runs.get(e.prompt) ?? []), e]);
  const reruns = [...runs.values()].reduce((a, r) => a + r.length - 1, 0);
  const failed = inbox.filter((r) => r.status === 'failed').map((r) => r.message_id);
  console.log(
    `relays-crash: ${total} messages in ${size.chats} chats, ${kills} kills, ${elapsed} ms; ` +
      `${fleet.fake.created.length} replies, ${reruns} re-runs after a kill, ${redelivered} webhook redeliveries, ` +
      `${failed.length} failed after two cut runs (seed ${rng.seed})`,
  );

  expect(inbox.map((r) => r.message_id).sort(), `seed ${rng.seed}`).toEqual(
    Array.from({ length: size.chats }, (_, c) => Array.from({ length: size.perChat }, (_, m) => sidOf(c, m)))
      .flat()
      .sort(),
  );
  expect(
    inbox.filter((r) => r.status !== 'done' && r.status !== 'failed'),
    `seed ${rng.seed}`,
  ).toEqual([]);
  expect(outbox.filter((r) => r.status !== 'sent')).toEqual([]);
  for (let c = 0; c < size.chats; c++) {
    const want = Array.from({ length: size.perChat }, (_, m) => {
      const text = textOf(c, m);
      // A message whose run was cut twice is given up on purpose, with a notice (recovery.ts).
      return failed.includes(sidOf(c, m)) ? NOTICE.crashedTwice : `reply: ${text}`;
    });
    const got = fleet.fake.created.filter((m) => m.to === chatNumber(c)).map((m) => m.body);
    expect(got, `chat ${c}, in order, each once (seed ${rng.seed})`).toEqual(want);
    for (let m = 0; m < size.perChat; m++) {
      const text = textOf(c, m);
      const mine = runs.get(text) ?? [];
      const cut = failed.includes(sidOf(c, m)) ? mine : mine.slice(0, -1);
      expect(mine.length, `${text} ran (seed ${rng.seed})`).toBeGreaterThanOrEqual(1);
      for (const r of cut)
        expect(
          cutByKill(fleet, r),
          `${text} ran again though no kill cut its run: ${forensics(fleet, text, mine)}`,
        ).toBe(true);
    }
  }
}

/**
 * Whether a kill cut this run: its relay was killed. A run whose relay died before it logged its
 * start names no relay (its parent is already init, PID 1): then it is the relay whose state folder
 * its arguments name (the tools' config file lies there), killed before the run logged.
 */
function cutByKill(fleet: Fleet, run: FakeEvent): boolean {
  if (run.ppid !== undefined && fleet.killed.has(run.ppid)) return true;
  if (run.ppid !== 1) return false;
  const home = fleet.homes.findIndex((h) => run.argv?.some((a) => a.startsWith(`${h.dir}/`)));
  return fleet.history.some((h) => h.index === home && h.killedAt !== undefined && h.killedAt <= run.t);
}

/** What a failing re-run check shows: the message's runs, the relays' lives, their log lines near it. */
function forensics(fleet: Fleet, text: string, runs: FakeEvent[]): string {
  const from = (runs[0]?.t ?? 0) - 40_000;
  const to = (runs.at(-1)?.t ?? 0) + 5_000;
  const ends = fleet.events().filter((e) => e.ev === 'end' && runs.some((r) => r.pid === e.pid));
  const relays = new Set(runs.map((r) => r.ppid));
  const indexes = new Set(fleet.history.filter((h) => relays.has(h.pid)).map((h) => h.index));
  const lines = [...indexes].flatMap((i) =>
    fleet
      .logs(i)
      .filter((l) => Number(l.time) >= from && Number(l.time) <= to)
      .map((l) => ({ relay: i, ...l })),
  );
  return JSON.stringify({ text, runs, ends, history: fleet.history, lines }, null, 1);
}
