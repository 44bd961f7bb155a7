#!/usr/bin/env node
// Captures one real agent CLI run with no credentials at all (a fresh HOME, no API key in the
// environment), as a first-time user on a new machine has it, into fixtures/agents/<cli>/<name>.json
// in the shape of the harness's run.sh (plus `stdout_at_ms` and `stderr_at_ms`: when each line
// arrived, so a test can tell how soon the relay may know). Runs ONLY inside the loopback-only namespace:
//   sh test/clis/netns.sh node test/clis/capture/unsigned.mjs NAME TIMEOUT_S CLI ARGS...
// The prompt goes on stdin, as the relay gives it.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

if (process.env.AGENTWIRE_CLIS_NETNS !== '1') {
  console.error('unsigned.mjs: run me through test/clis/netns.sh (the CLIs must not reach the network)');
  process.exit(2);
}
const [name, timeoutS, cli, ...args] = process.argv.slice(2);
if (!name || !timeoutS || !cli) {
  console.error('usage: unsigned.mjs NAME TIMEOUT_S CLI ARGS...');
  process.exit(2);
}
const dir = process.env.AGENTWIRE_CLIS_DIR ?? path.join(os.homedir(), '.cache/agentwire-clis');
const bin = path.join(dir, 'bin', cli);
const state = fs.mkdtempSync(path.join(os.tmpdir(), 'aw-unsigned-'));
for (const d of ['home', 'tmp', 'work']) fs.mkdirSync(path.join(state, d));
const env = {
  PATH: `${path.join(dir, 'bin')}:${path.dirname(process.execPath)}:/usr/bin:/bin`,
  LANG: 'C.UTF-8',
  HOME: path.join(state, 'home'),
  TMPDIR: path.join(state, 'tmp'),
};
function version() {
  for (let d = path.dirname(fs.realpathSync(bin)); d !== path.dirname(d); d = path.dirname(d)) {
    try {
      const p = JSON.parse(fs.readFileSync(path.join(d, 'package.json'), 'utf8'));
      if (p.name && p.version) return `${p.name}@${p.version}`;
    } catch {}
  }
  return null;
}
const t0 = performance.now();
const child = spawn(bin, args, {
  cwd: path.join(state, 'work'),
  env,
  stdio: ['pipe', 'pipe', 'pipe'],
  detached: true,
});
child.stdin.end('hello\n');
let out = '';
let err = '';
const at = [];
const errAt = [];
/** Records when each complete line of a stream arrived. */
function lineTimes(times) {
  let partial = '';
  return (c) => {
    partial += c;
    for (let i = partial.indexOf('\n'); i >= 0; i = partial.indexOf('\n')) {
      times.push(Math.round(performance.now() - t0));
      partial = partial.slice(i + 1);
    }
  };
}
const outLine = lineTimes(at);
const errLine = lineTimes(errAt);
child.stdout.on('data', (c) => {
  out += c;
  outLine(c);
});
child.stderr.on('data', (c) => {
  err += c;
  errLine(c);
});
let timedOut = false;
const timer = setTimeout(() => {
  timedOut = true;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {}
}, Number(timeoutS) * 1000);
child.on('close', (code, signal) => {
  clearTimeout(timer);
  const ms = Math.round(performance.now() - t0);
  const cap = {
    cli,
    cli_version: version(),
    argv: [cli, ...args],
    cwd: '<state>/work',
    mode: 'no-credentials',
    reply: null,
    exit_code: code,
    signal,
    timed_out: timedOut,
    duration_ms: ms,
    stdout: out,
    stderr: err.replaceAll(state, '<state>'),
    stdout_at_ms: at,
    stderr_at_ms: errAt,
    env: Object.keys(env),
    network_isolated: true,
    captured_at: new Date().toISOString(),
  };
  const file = path.resolve(import.meta.dirname, '../../../fixtures/agents', cli, `${name}.json`);
  fs.writeFileSync(file, `${JSON.stringify(cap, null, 2)}\n`);
  fs.rmSync(state, { recursive: true, force: true });
  console.error(`${cli} exit=${code} signal=${signal} ${ms} ms${timedOut ? ' (timed out)' : ''} -> ${file}`);
});
