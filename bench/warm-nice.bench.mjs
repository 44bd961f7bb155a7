// Does starting warm agent processes at a lower CPU priority (nice 10) keep webhook acks fast?
// A stand-in relay (its own process: a node:http server that checks an HMAC-SHA1 signature over
// the form body and answers 200, the work of a Twilio ack) starts BURST CPU-heavy children at
// once (each ~1 s of CPU, like a CLI's start-up: claude's is 1-3 s), each in a session of its own
// as every agent is, either plain or lowered right after the spawn as the relay does
// (src/runner/nice.ts): os.setPriority(pid, 10) and the session's autogroup at 10; without the
// second, the nice weighs nothing against the relay under autogroup scheduling (BENCH_NICE_GROUP=0
// lowers only the nice, as the pool did before 2026-11-29). Meanwhile this process posts
// webhooks, P in flight, and records each one's time to its 200 until the children are done.
// Rounds alternate plain / niced in the same relay process, so the machine's other load falls on
// both alike. Prints p50 and p99 of each.
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { quantile } from './lib/stats.mjs';

const ROUNDS = Number(process.env.BENCH_NICE_ROUNDS ?? 6);
const BURST = Number(process.env.BENCH_NICE_BURST ?? 4);
const WORK = Number(process.env.BENCH_NICE_WORK ?? 60_000_000);
const P = 4;
/** Open loop: a webhook every 1000/RATE ms whatever the answers do, as senders send (0: closed loop, P in flight). */
const RATE = Number(process.env.BENCH_NICE_RATE ?? 100);
/** CPU per ack in the stand-in relay (iterations): the relay's own work per webhook (store, parse, sign). */
const REQ_WORK = Number(process.env.BENCH_NICE_REQ_WORK ?? 300_000);
const GROUP = process.env.BENCH_NICE_GROUP !== '0';

const relaySrc = `
const { createServer } = require('node:http');
const { createHmac } = require('node:crypto');
const { spawn } = require('node:child_process');
const { setPriority } = require('node:os');
const { writeFileSync } = require('node:fs');
const burn = 'let x = 0; for (let i = 0; i < ${WORK}; i++) x += Math.sqrt(i); if (x < 0) console.log(x);';
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    const params = new URLSearchParams(body);
    let x = 0;
    for (let i = 0; i < ${REQ_WORK}; i++) x += Math.sqrt(i);
    if (x < 0) console.log(x);
    const sig = createHmac('sha1', 'token').update([...params].map(([k, v]) => k + v).join('')).digest('base64');
    res.writeHead(200, { 'content-type': 'text/xml', 'x-sig': sig });
    res.end('<?xml version="1.0" encoding="UTF-8"?><Response/>');
  });
});
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
process.stdin.setEncoding('utf8');
let buf = '';
process.stdin.on('data', (d) => {
  buf += d;
  for (let i = buf.indexOf('\\n'); i !== -1; i = buf.indexOf('\\n')) {
    const [n, mode] = buf.slice(0, i).split(' ');
    buf = buf.slice(i + 1);
    let left = Number(n);
    for (let k = 0; k < Number(n); k++) {
      const c = spawn(process.execPath, ['-e', burn], { stdio: 'ignore', detached: true });
      if (mode === 'nice') {
        setPriority(c.pid, 10);
        if (${GROUP}) try { writeFileSync('/proc/' + c.pid + '/autogroup', '10'); } catch {}
      }
      c.on('exit', () => { if (--left === 0) console.log(JSON.stringify({ done: mode })); });
    }
  }
});
`;

export default async function warmNice() {
  const relay = spawn(process.execPath, ['-e', relaySrc], { stdio: ['pipe', 'pipe', 'inherit'] });
  const events = [];
  let wake = () => {};
  let out = '';
  relay.stdout.on('data', (d) => {
    out += d;
    for (let i = out.indexOf('\n'); i !== -1; i = out.indexOf('\n')) {
      events.push(JSON.parse(out.slice(0, i)));
      out = out.slice(i + 1);
      wake();
    }
  });
  const next = () =>
    new Promise((r) => {
      if (events.length) r();
      else wake = r;
    }).then(() => events.shift());
  const { port } = await next();
  const agent = new Agent({ keepAlive: true, maxSockets: RATE > 0 ? 64 : P });
  const post = () =>
    new Promise((resolve, reject) => {
      const body = `From=%2B15550001234&Body=hello&MessageSid=SM${Math.random()}`;
      const t = performance.now();
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/twilio/inbound',
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(performance.now() - t));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const samples = { plain: [], nice: [] };
  const cpuStartSeconds = { plain: [], nice: [] };
  try {
    for (let i = 0; i < 50; i++) await post();
    for (let r = 0; r < ROUNDS * 2; r++) {
      const mode = r % 2 === 0 ? 'plain' : 'nice';
      relay.stdin.write(`${BURST} ${mode}\n`);
      const t0 = performance.now();
      let done = false;
      const finished = next().then(() => {
        done = true;
      });
      if (RATE > 0) {
        const inflight = [];
        while (!done) {
          inflight.push(post().then((ms) => samples[mode].push(ms)));
          await new Promise((r) => setTimeout(r, 1000 / RATE));
        }
        await Promise.all(inflight);
      } else {
        await Promise.all(
          Array.from({ length: P }, async () => {
            while (!done) samples[mode].push(await post());
          }),
        );
      }
      await finished;
      cpuStartSeconds[mode].push((performance.now() - t0) / 1000);
    }
  } finally {
    agent.destroy();
    relay.kill();
  }
  const q = (xs, p) => quantile(xs, p);
  const rows = [];
  for (const mode of ['plain', 'nice']) {
    rows.push({ metric: `ack p50, ${BURST} starts ${mode}`, value: q(samples[mode], 0.5), unit: 'ms' });
    rows.push({ metric: `ack p99, ${BURST} starts ${mode}`, value: q(samples[mode], 0.99), unit: 'ms' });
    rows.push({ metric: `acks measured ${mode}`, value: samples[mode].length, unit: '' });
    rows.push({
      metric: `burst wall time ${mode} (median of rounds)`,
      value: q(cpuStartSeconds[mode], 0.5),
      unit: 's',
    });
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await warmNice())
    console.log(`${r.metric}: ${typeof r.value === 'number' ? r.value.toFixed(2) : r.value} ${r.unit}`);
}
