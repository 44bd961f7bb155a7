#!/usr/bin/env node
// Does each CLI's long-lived mode exit on end of input when idle (the first half of parent-death
// detection)? Run inside the harness's netns:
//   ../shared/harness/agent-clis/netns.sh node test/clis/probe-eof.mjs
// Prints one line per CLI: its exit and how long after stdin closed. No model is needed (the base
// URL points nowhere): the process starts, gets one `initialize` where the protocol has one, idles,
// then sees end of input.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const harness =
  process.env.AGENT_CLIS_HARNESS ??
  join(import.meta.dirname, '..', '..', '..', 'shared', 'harness', 'agent-clis');
const clisDir = process.env.AGENT_CLIS_DIR ?? join(process.env.HOME, '.cache', 'agentwire-clis');
for (const [cli, argv] of [
  ['gemini', ['gemini', '--acp']],
  ['opencode', ['opencode', 'acp']],
  [
    'claude',
    ['claude', '-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose'],
  ],
  ['codex', ['codex', 'app-server']],
  ['pi', ['pi', '--mode', 'rpc']],
]) {
  const state = mkdtempSync(join(tmpdir(), 'aw-eof-'));
  const env = { PATH: `${clisDir}/bin:${process.env.PATH}`, LANG: 'C.UTF-8' };
  for (const l of execFileSync(join(harness, 'setup.sh'), [cli, state, 'http://127.0.0.1:9/s/x'], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, AGENT_CLIS_DIR: clisDir },
  })
    .trim()
    .split('\n')) {
    const i = l.indexOf('=');
    if (i > 0) env[l.slice(0, i)] = l.slice(i + 1);
  }
  const c = spawn(argv[0], argv.slice(1), {
    cwd: join(state, 'work'),
    env,
    stdio: ['pipe', 'pipe', 'ignore'],
    detached: true,
  });
  c.stdout.on('data', () => {});
  const first =
    cli === 'gemini' || cli === 'opencode'
      ? { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1 } }
      : cli === 'codex'
        ? { id: 0, method: 'initialize', params: { clientInfo: { name: 'x', version: '0' } } }
        : null;
  await new Promise((r) => setTimeout(r, 3000));
  if (first) c.stdin.write(JSON.stringify(first) + '\n');
  await new Promise((r) => setTimeout(r, 2000));
  const t = Date.now();
  c.stdin.end();
  const exit = await Promise.race([
    new Promise((r) => c.once('exit', (code, sig) => r({ code, sig }))),
    new Promise((r) => setTimeout(() => r('still running after 10 s'), 10000)),
  ]);
  console.log(cli, JSON.stringify(exit), Date.now() - t, 'ms after end of input');
  try {
    process.kill(-c.pid, 'SIGKILL');
  } catch {}
}
