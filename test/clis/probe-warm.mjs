#!/usr/bin/env node
// Probes the long-lived modes of claude (stream-json), codex (app-server) and pi (rpc) on the pinned
// versions, offline, and writes what went in and came out as a capture (never typed by hand):
//   AGENT_CLIS_DIR=… ../shared/harness/agent-clis/netns.sh node test/clis/probe-warm.mjs claude fixtures/agents/claude/warm/probe.json
// The script: two turns, a third turn against a hanging model that is steered and then
// interrupted, a fourth turn, then end of input. Facts for docs/warm-agents.md come from these.
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [cli, out] = process.argv.slice(2);
const harness =
  process.env.AGENT_CLIS_HARNESS ??
  join(import.meta.dirname, '..', '..', '..', 'shared', 'harness', 'agent-clis');
const clisDir = process.env.AGENT_CLIS_DIR ?? join(process.env.HOME, '.cache', 'agentwire-clis');
const t0 = Date.now();
const transcript = [];
const note = (what) => transcript.push({ t: Date.now() - t0, note: what });

const server = spawn(
  process.execPath,
  [join(harness, 'fake-llm.mjs'), '--port', '0', '--reply', 'First answer.'],
  {
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
const port = await new Promise((r) =>
  server.stdout.on('data', (d) => /LISTENING (\d+)/.test(d) && r(/LISTENING (\d+)/.exec(d)[1])),
);
const base = `http://127.0.0.1:${port}`;
const setScenario = (sc) =>
  fetch(`${base}/_control/scenarios/p`, { method: 'PUT', body: JSON.stringify(sc) });
await setScenario({ mode: 'ok', reply: 'First answer.' });
const state = mkdtempSync(join(tmpdir(), `aw-probe-${cli}-`));
const env = { PATH: `${clisDir}/bin:${process.env.PATH}`, LANG: 'C.UTF-8' };
for (const line of execFileSync(join(harness, 'setup.sh'), [cli, state, `${base}/s/p`], {
  encoding: 'utf8',
  env: { PATH: process.env.PATH, AGENT_CLIS_DIR: clisDir, FAST_FAIL: '1' },
})
  .trim()
  .split('\n')) {
  const i = line.indexOf('=');
  if (i > 0) env[line.slice(0, i)] = line.slice(i + 1);
}
const cwd = join(state, 'work');
const argv = {
  claude: [
    'claude',
    '-p',
    '--input-format',
    'stream-json',
    '--output-format',
    'stream-json',
    '--verbose',
    '--session-id',
    randomUUID(),
  ],
  codex: ['codex', 'app-server'],
  pi: ['pi', '--mode', 'rpc', '--session', join(state, 'pi-session.jsonl')],
}[cli];

const child = spawn(argv[0], argv.slice(1), { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
let buf = '';
let stderr = '';
const waiters = [];
const lines = [];
child.stdout.on('data', (d) => {
  buf += d;
  for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
    const text = buf.slice(0, i);
    buf = buf.slice(i + 1);
    let msg;
    try {
      msg = JSON.parse(text);
    } catch {
      msg = text;
    }
    transcript.push({ t: Date.now() - t0, dir: 'out', msg });
    lines.push(msg);
    for (const w of [...waiters]) if (w.test(msg)) w.done(msg);
  }
});
child.stderr.on('data', (d) => {
  stderr += d;
});
const exited = new Promise((r) => child.once('exit', (code, signal) => r({ code, signal })));
const send = (msg) => {
  transcript.push({ t: Date.now() - t0, dir: 'in', msg });
  child.stdin.write(`${JSON.stringify(msg)}\n`);
};
const until = (test, ms = 30_000) =>
  new Promise((resolve) => {
    const w = {
      test,
      done: (m) => {
        waiters.splice(waiters.indexOf(w), 1);
        clearTimeout(timer);
        resolve(m);
      },
    };
    const timer = setTimeout(() => {
      waiters.splice(waiters.indexOf(w), 1);
      note(`timed out after ${ms} ms`);
      resolve(undefined);
    }, ms);
    waiters.push(w);
  });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const script = {
  async claude() {
    const user = (text) =>
      send({ type: 'user', message: { role: 'user', content: [{ type: 'text', text }] } });
    const result = (m) => m?.type === 'result';
    user('hello');
    await until(result);
    await setScenario({ mode: 'ok', reply: 'Second answer.' });
    user('second question');
    await until(result);
    await setScenario({ mode: 'hang' });
    user('this one hangs');
    await sleep(1500);
    note('steer: a user message while the turn runs');
    user('also this');
    await sleep(500);
    send({ type: 'control_request', request_id: 'int-1', request: { subtype: 'interrupt' } });
    await until((m) => m?.type === 'control_response' || result(m), 10_000);
    await until(result, 5_000);
    await setScenario({ mode: 'ok', reply: 'Fourth answer.' });
    user('after the interrupt');
    await until(result);
  },
  async codex() {
    let id = 0;
    const request = async (method, params) => {
      const my = ++id;
      send({ id: my, method, params });
      return until((m) => m?.id === my && !m.method);
    };
    await request('initialize', { clientInfo: { name: 'agentwire', version: '0' } });
    send({ method: 'initialized' });
    const started = await request('thread/start', { cwd });
    const threadId = started?.result?.thread?.id;
    const turn = async (text) => {
      const r = await request('turn/start', { threadId, input: [{ type: 'text', text }] });
      return r?.result?.turn?.id;
    };
    const completed = (m) => m?.method === 'turn/completed';
    await turn('hello');
    await until(completed);
    await setScenario({ mode: 'ok', reply: 'Second answer.' });
    await turn('second question');
    await until(completed);
    await setScenario({ mode: 'hang' });
    const turnId = await turn('this one hangs');
    await sleep(1500);
    await request('turn/steer', {
      threadId,
      input: [{ type: 'text', text: 'also this' }],
      expectedTurnId: turnId,
    });
    await request('turn/interrupt', { threadId, turnId });
    await until(completed, 10_000);
    await setScenario({ mode: 'ok', reply: 'Fourth answer.' });
    await turn('after the interrupt');
    await until(completed);
  },
  async pi() {
    const end = (m) => m?.type === 'agent_end';
    send({ id: 'p1', type: 'prompt', message: 'hello' });
    await until(end);
    await setScenario({ mode: 'ok', reply: 'Second answer.' });
    send({ id: 'p2', type: 'prompt', message: 'second question' });
    await until(end);
    await setScenario({ mode: 'hang' });
    send({ id: 'p3', type: 'prompt', message: 'this one hangs' });
    await sleep(1500);
    send({ id: 's1', type: 'steer', message: 'also this' });
    await sleep(300);
    send({ id: 'a1', type: 'abort' });
    await until(end, 10_000);
    await setScenario({ mode: 'ok', reply: 'Fourth answer.' });
    send({ id: 'p4', type: 'prompt', message: 'after the abort' });
    await until(end);
  },
}[cli];

await script();
note('end of input');
child.stdin.end();
const exit = await Promise.race([exited, sleep(10_000).then(() => undefined)]);
if (!exit) {
  note('still running 10 s after end of input: killed');
  process.kill(-child.pid, 'SIGKILL');
}
const requests = await (await fetch(`${base}/_control/requests?scenario=p`)).json();
server.kill();
const version = JSON.parse(
  readFileSync(
    join(
      clisDir,
      cli,
      'node_modules',
      { claude: '@anthropic-ai/claude-code', codex: '@openai/codex', pi: '@mariozechner/pi-coding-agent' }[
        cli
      ],
      'package.json',
    ),
    'utf8',
  ),
).version;
writeFileSync(
  out,
  `${JSON.stringify(
    {
      cli,
      cli_version: version,
      argv,
      captured_at: new Date().toISOString(),
      network_isolated: process.env.AGENT_CLIS_NETNS === '1',
      exit: exit ?? 'killed after 10 s',
      request_count: requests.length,
      last_request_body: requests.at(-1)?.body,
      stderr: stderr.slice(-4000),
      transcript,
    },
    null,
    2,
  )}\n`,
);
process.exit(0);
