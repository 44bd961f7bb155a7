// Start-up: the built `agentwire relay` (Twilio on with its webhook on 127.0.0.1, WhatsApp off, the
// web console on at an ephemeral port, a fresh temp AGENTWIRE_HOME each time) from spawn until the
// webhook answers a request, and its resident memory after a second of idling. The floor, measured
// alternately in the same process: `node -e ''` from spawn to exit, and the RSS of an otherwise
// empty node process after the same idle second.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { relayHome } from './lib/relay-proc.mjs';
import { median, sleep } from './lib/stats.mjs';

const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 5);
const IDLE_MS = 1000;

const rssKbOf = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);

function nodeEmpty() {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', () => resolve(performance.now() - t0));
  });
}

async function nodeIdleRss() {
  // `node -e ''` exits at once; kept alive by a timer, it is the same empty process, measurable.
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
  const gone = new Promise((r) => child.once('exit', r));
  try {
    await sleep(IDLE_MS);
    return rssKbOf(child.pid);
  } finally {
    child.kill('SIGKILL');
    await gone;
  }
}

async function relayOnce() {
  const relay = await relayHome({ console: true });
  try {
    const ms = await relay.start();
    await sleep(IDLE_MS);
    return { ms, rssKb: relay.rssKb() };
  } finally {
    await relay.stop();
  }
}

export default async function () {
  await nodeEmpty(); // warm the file cache for both
  await relayOnce();
  const relay = [];
  const floorMs = [];
  const floorRss = [];
  for (let i = 0; i < RUNS; i++) {
    relay.push(await relayOnce());
    floorMs.push(await nodeEmpty());
    floorRss.push(await nodeIdleRss());
  }
  const ms = median(relay.map((r) => r.ms));
  const rss = median(relay.map((r) => r.rssKb)) / 1024;
  const fMs = median(floorMs);
  const fRss = median(floorRss) / 1024;
  return [
    { metric: `floor: node -e '' spawn to exit (median of ${RUNS})`, value: fMs, unit: 'ms' },
    { metric: 'relay: spawn until the Twilio webhook answers (median)', value: ms, unit: 'ms' },
    { metric: 'start-up ratio relay / node floor', value: ms / fMs, unit: '' },
    { metric: `floor: RSS of an empty node process after ${IDLE_MS} ms`, value: fRss, unit: 'MiB' },
    { metric: `relay: RSS after start and ${IDLE_MS} ms idle (median)`, value: rss, unit: 'MiB' },
    { metric: 'idle RSS ratio relay / node floor', value: rss / fRss, unit: '' },
  ];
}
