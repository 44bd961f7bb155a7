// Load: many chats and many messages through a real relay process (the signed Twilio webhook in,
// the fake REST server out) and through a real `agentwire chat` process (the console channel), with
// the fake claude sleeping 0–200 ms per run (chosen by a seeded random, written into each message as
// `sleep:<ms>`).
//
// "Answered exactly once" under each busy policy: with `collect` (the default) messages that arrive
// during a run are answered together by the next run, so every message's tag must appear in exactly
// one reply, once, and the tags a chat receives must come in the order it sent them; with `followup`
// each message must get its own reply, once, in order. Concurrency is measured twice: from the fake
// CLI's start/end log (PIDs and times) and by counting the relay's live child processes in /proc.
import { existsSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FakeTwilio } from '../channels/twilio/helpers/fake-twilio.js';
import { smsParams, twilioPost } from '../channels/twilio/helpers/harness.js';
import { type Home, MAIN, makeHome, maxOverlap, type Proc, spawnNode } from '../e2e/helpers.js';
import {
  chatNumber,
  liveChildren,
  memoryMb,
  type Rng,
  sampleMax,
  seededRandom,
  settle,
  startRelayProcess,
  twilioSetup,
  untilQuiet,
} from './helpers.js';

const CHATS = 50;
const PER_CHAT = 20;
const MAX_RUNS = 4;
/** The old-generation heap cap of the process under load (the relay needs about 45 MB here). */
const HEAP_CAP_MB = 64;
/**
 * Growth of resident memory allowed during the second round of the same load. Both processes grow
 * 1–5 MB here; garbage that holds native memory V8 does not count (an Intl formatter per message, a
 * compiled SQLite statement per call) showed as 20–60 MB per round.
 */
const RSS_GROWTH_MB = 12;
/** Peak resident memory allowed for the process under load. */
const PEAK_MB = 220;

let home: Home | undefined;
let fake: FakeTwilio | undefined;
const procs: Proc[] = [];
afterEach(async () => {
  for (const p of procs.splice(0))
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  await fake?.close();
  fake = undefined;
  home?.cleanup();
});
beforeAll(() => {
  expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
});

const pad = (n: number, w: number) => String(n).padStart(w, '0');
const tagsIn = (text: string, re: RegExp) => [...text.matchAll(re)].map((x) => x[0]);
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Each message: a gap before it is sent and the fake CLI's sleep (0–200 ms). */
function plan(rng: Rng, chats: number, perChat: number, maxGap: number) {
  return Array.from({ length: chats }, () =>
    Array.from({ length: perChat }, () => ({ gap: rng.int(maxGap + 1), sleep: rng.int(201) })),
  );
}

/**
 * A capped heap: V8 must collect rather than grow, so what the process keeps is what it needs; one
 * that kept something per message would run out of heap (and crash) within the load.
 */
const capHeap = (h: Home) => {
  h.env.NODE_OPTIONS = `--max-old-space-size=${HEAP_CAP_MB}`;
};

function checkMemory(name: string, rss: number[], peak: number): void {
  // rss: [warm, after round 1, after round 2]. The first round grows the heap to its working size;
  // growth during the second is what a leak would show.
  expect((rss[2] as number) - (rss[1] as number), `${name}: RSS ${rss.join(' → ')}`).toBeLessThan(
    RSS_GROWTH_MB,
  );
  expect(peak).toBeLessThan(PEAK_MB);
}

const mb = (list: number[]) => list.map((r) => r.toFixed(0)).join(' → ');

describe('load through the Twilio webhook', () => {
  // followup makes one CLI run per message; at 20 a chat that is 1,000 runs (about 100 s on two
  // cores), so that variant sends 5 a chat: still 250 runs queued behind a cap of 4.
  it.each([
    { policy: 'collect', rounds: 2, perChat: PER_CHAT },
    { policy: 'followup', rounds: 1, perChat: 5 },
  ] as const)(
    `${CHATS} chats × $perChat messages, $policy, at most ${MAX_RUNS} CLIs`,
    async ({ policy, rounds, perChat }) => {
      const rng = seededRandom(`load/twilio/${policy}`);
      const setup = await twilioSetup({ queue: { maxConcurrentRuns: MAX_RUNS, whileBusy: policy } });
      fake = setup.fake;
      home = setup.home;
      const url = setup.url;
      capHeap(home);
      const relay = await startRelayProcess(home);
      procs.push(relay);
      const pid = relay.child.pid as number;

      // Warm up (first spawn, first SQLite pages, the SDK's lazy modules) before the memory baseline.
      expect((await twilioPost(url, smsParams({ From: chatNumber(99), Body: 'warm up' }))).status).toBe(200);
      await settle(() => fake?.created.length === 1, 'no reply to the warm-up message', rng);

      const tag = (round: number, c: number, m: number) => `r${round}c${pad(c, 2)}m${pad(m, 2)}`;
      const chatBodies = (c: number) =>
        (fake?.created ?? []).filter((x) => x.to === chatNumber(c)).map((x) => x.body ?? '');
      const chatTags = (c: number) => tagsIn(chatBodies(c).join('\n'), /\br\dc\d\dm\d\d\b/g);
      const children = sampleMax(() => liveChildren(pid).length);
      const rss: number[] = [memoryMb(pid).rss];
      const steps = Array.from({ length: rounds }, () => plan(rng, CHATS, perChat, 60));
      for (const [round, load] of steps.entries()) {
        const statuses: number[] = [];
        // Each chat sends in order, waiting for the webhook's 200 (as Twilio does per conversation);
        // the chats run side by side.
        await Promise.all(
          load.map(async (msgs, c) => {
            for (const [m, s] of msgs.entries()) {
              await delay(s.gap);
              const params = smsParams({
                MessageSid: `SM${round}${pad(c, 15)}${pad(m, 16)}`,
                From: chatNumber(c),
                Body: `${tag(round, c, m)} sleep:${s.sleep}`,
              });
              const res = await twilioPost(url, params).catch((err: Error) => {
                throw new Error(
                  `webhook failed (${err.message}); relay stderr: ${relay.stderr().slice(-800)}`,
                );
              });
              statuses.push(res.status);
            }
          }),
        );
        expect(statuses.filter((s) => s !== 200)).toEqual([]);
        await settle(
          () => load.every((_, c) => chatTags(c).length >= perChat * (round + 1)),
          `round ${round}: not every message was answered`,
          rng,
          120_000,
        );
        // Nothing left running, waiting or unsent: no late duplicate can still arrive.
        await untilQuiet(home, rng);
        rss.push(memoryMb(pid).rss);
      }
      const maxChildren = children.stop();
      const peak = memoryMb(pid).peak;

      for (let c = 0; c < CHATS; c++) {
        // Exactly once and in order: the tags this chat received are its own, each once, as sent.
        const sent = steps.flatMap((load, round) => load[c]?.map((_, m) => tag(round, c, m)) ?? []);
        expect(chatTags(c), `chat ${c} (seed ${rng.seed})`).toEqual(sent);
        for (const b of chatBodies(c))
          expect(b.startsWith('reply: '), `not an answer: ${b.slice(0, 80)}`).toBe(true);
        // followup: one run and one reply per message, nothing merged.
        if (policy === 'followup') expect(chatBodies(c)).toHaveLength(perChat);
      }
      const events = home.events();
      const overlap = maxOverlap(events);
      console.log(
        `load/twilio/${policy}: ${rounds} × ${CHATS * perChat} messages in ${events.filter((e) => e.ev === 'start').length - 1} runs; ` +
          `most CLIs at once: ${overlap} by the CLI log, ${maxChildren} by /proc; relay RSS ${mb(rss)} MB, peak ${peak.toFixed(0)} MB`,
      );
      expect(overlap).toBeLessThanOrEqual(MAX_RUNS);
      expect(maxChildren).toBeLessThanOrEqual(MAX_RUNS);
      // The cap was reached: a relay that ran everything one at a time would not pass.
      expect(Math.max(overlap, maxChildren)).toBe(MAX_RUNS);
      if (rounds === 2) checkMemory(`load/twilio/${policy}`, rss, peak);
      else expect(peak).toBeLessThan(PEAK_MB);
    },
  );
});

describe('load through the console channel', () => {
  // The console is one chat (console:local) in its own process, so its load is the same 1,000
  // messages as one stream of lines: 50 bursts of 20, twice. One chat means one lane: at most one CLI.
  it(`agentwire chat: 2 × ${CHATS * PER_CHAT} lines, collect, every line answered once, in order`, async () => {
    const rng = seededRandom('load/console');
    // Lines arrive much faster than runs end: the whole backlog may wait, so the cap must allow it.
    home = makeHome({ queue: { maxConcurrentRuns: MAX_RUNS, maxPendingPerChat: 2 * CHATS * PER_CHAT } });
    capHeap(home);
    const chat = spawnNode([MAIN, 'chat'], home.env);
    procs.push(chat);
    const pid = chat.child.pid as number;
    const stdin = chat.child.stdin;
    if (!stdin) throw new Error('no stdin');
    const tag = (n: number) => `line${pad(n, 4)}`;
    const printed = () => tagsIn(chat.stdout(), /\bline\d{4}\b/g);

    stdin.write('warm up\n');
    await settle(() => chat.stdout().includes('reply: warm up'), 'no reply to the warm-up line', rng);
    const children = sampleMax(() => liveChildren(pid).length);
    const rss: number[] = [memoryMb(pid).rss];
    let n = 0;
    for (let round = 0; round < 2; round++) {
      for (const burst of plan(rng, CHATS, PER_CHAT, 3)) {
        for (const s of burst) stdin.write(`${tag(n++)} sleep:${s.sleep}\n`);
        await delay(rng.int(40));
      }
      await settle(() => printed().length >= n, `round ${round}: not every line was answered`, rng, 120_000);
      rss.push(memoryMb(pid).rss);
    }
    const maxChildren = children.stop();
    const peak = memoryMb(pid).peak;
    stdin.end();
    expect((await chat.exit).code, chat.stderr()).toBe(0);

    expect(printed(), `seed ${rng.seed}`).toEqual(Array.from({ length: n }, (_, i) => tag(i)));
    expect(chat.stderr()).toBe('');
    const events = home.events();
    console.log(
      `load/console: ${n} lines in ${events.filter((e) => e.ev === 'start').length - 1} runs; most CLIs at once: ` +
        `${maxOverlap(events)} by the CLI log, ${maxChildren} by /proc; RSS ${mb(rss)} MB, peak ${peak.toFixed(0)} MB`,
    );
    expect(maxOverlap(events)).toBe(1);
    expect(maxChildren).toBeLessThanOrEqual(1);
    checkMemory('load/console', rss, peak);
  });
});
