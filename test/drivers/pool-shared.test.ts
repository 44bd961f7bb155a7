// The pool with `sessionsPerProcess`: chats of codex and of an ACP agent share processes (the fake
// CLIs, real child processes), at most the cap each, every chat in its own session; a crash fails
// the chats on that process and each recovers on its own session; claude never shares.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { AgentKind, AgentRequest, AgentResult, SessionRef } from '../../src/agents/types.js';
import { createWarmPool, type WarmPool } from '../../src/drivers/pool.js';
import { createLogger } from '../../src/log.js';

const FIX = join(import.meta.dirname, '..', 'fixtures');
const dir = mkdtempSync(join(tmpdir(), 'aw-pool-shared-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const pools: WarmPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.shutdown(5000)));
});

function pool(sessionsPerProcess: number, maxProcesses = 8): WarmPool {
  const p = createWarmPool({
    maxProcesses,
    sessionsPerProcess,
    idleMs: 60_000,
    log: createLogger({ level: 'silent' }),
    cold: () => undefined,
  });
  pools.push(p);
  return p;
}

const FAKES: Partial<Record<AgentKind, string>> = {
  codex: 'fake-codex-app-server.mjs',
  acp: 'fake-acp-agent.mjs',
  claude: 'fake-claude-stream.mjs',
};

let seq = 0;
function rig(kind: AgentKind) {
  const starts = join(dir, `starts-${++seq}`);
  const state = join(dir, `state-${seq}`);
  const req = (prompt: string, session: SessionRef, cwd = dir): AgentRequest => ({
    prompt,
    session,
    command: [process.execPath, join(FIX, FAKES[kind] as string)],
    cwd,
    stateDir: state,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      FAKE_CODEX_STATE: dir,
      FAKE_CODEX_STARTS: starts,
      FAKE_ACP_STARTS: starts,
    },
    timeoutMs: 10_000,
  });
  const started = () => (existsSync(starts) ? readFileSync(starts, 'utf8').split('\n').filter(Boolean) : []);
  return { req, started };
}

const text = (r: AgentResult) => (r.type === 'ok' ? r.text : `${r.type}:${r.kind}`);
const resume = (r: AgentResult): SessionRef => ({ type: 'resume', id: r.sessionId as string });
const pids = (p: WarmPool) => new Set(p.list(Date.now()).map((x) => x.pid));

describe.each(['codex', 'acp'] as const)('pool sharing %s processes', (kind) => {
  it('five chats, three a process: two processes, each chat its own session and words', async () => {
    const p = pool(3);
    const { req, started } = rig(kind);
    const first = await Promise.all(
      [0, 1, 2, 3, 4].map((i) => p.run(`chat:${i}`, kind, req(`word${i} is mine`, { type: 'new' }))),
    );
    for (const r of first) expect(r.type, text(r)).toBe('ok');
    expect(new Set(first.map((r) => r.sessionId)).size).toBe(5);
    expect(started()).toHaveLength(2);
    expect(pids(p).size).toBe(2);
    const hosts = p.list(Date.now()).map((x) => x.host);
    for (const h of new Set(hosts)) expect(hosts.filter((x) => x === h).length).toBeLessThanOrEqual(3);
    const recalled = await Promise.all(
      first.map((r, i) => p.run(`chat:${i}`, kind, req('recall', resume(r)))),
    );
    recalled.forEach((r, i) => {
      expect(text(r)).toBe(`recall: word${i} is mine`);
    });
    expect(started()).toHaveLength(2);
  });

  it('a crash fails the chats on that process; each comes back on its own session', async () => {
    const p = pool(2);
    const { req, started } = rig(kind);
    const a = await p.run('chat:a', kind, req('alpha', { type: 'new' }));
    const b = await p.run('chat:b', kind, req('beta', { type: 'new' }));
    const [pid] = [...pids(p)];
    expect(pids(p).size).toBe(1);
    // b mid-turn when a's turn kills the process: both end in error, as a process death does.
    const bTurn = p.run('chat:b', kind, { ...req('hang', resume(b)), timeoutMs: 3000 });
    await until(() => p.list(Date.now()).some((x) => x.sessionKey === 'chat:b' && x.busy));
    const died = await p.run('chat:a', kind, req('die', resume(a)));
    expect(died.type).toBe('error');
    const bDied = await bTurn;
    expect(bDied.type).toBe('error');
    const a2 = await p.run('chat:a', kind, req('again a', resume(a)));
    const b2 = await p.run('chat:b', kind, req('again b', resume(b)));
    expect(text(a2)).toContain('again a');
    expect(text(b2)).toContain('again b');
    expect(a2.sessionId).toBe(a.sessionId);
    expect(b2.sessionId).toBe(b.sessionId);
    expect(pids(p).size).toBe(1);
    expect([...pids(p)][0]).not.toBe(pid);
    // The first process, the one the retries ran on, and the one both chats came back to.
    expect(started().length).toBeGreaterThanOrEqual(2);
  });
});

describe('pool sharing: what does not share', () => {
  it('sessionsPerProcess 1 is a process per chat', async () => {
    const p = pool(1);
    const { req, started } = rig('codex');
    await Promise.all([0, 1, 2].map((i) => p.run(`chat:${i}`, 'codex', req(`hi ${i}`, { type: 'new' }))));
    expect(started()).toHaveLength(3);
    expect(pids(p).size).toBe(3);
  });

  it('claude holds one session a process whatever the setting', async () => {
    const p = pool(4);
    const { req } = rig('claude');
    const rs = await Promise.all(
      [0, 1].map((i) => p.run(`chat:${i}`, 'claude', req(`hi ${i}`, { type: 'new' }))),
    );
    for (const r of rs) expect(r.type, text(r)).toBe('ok');
    expect(pids(p).size).toBe(2);
  });

  it('processes started differently (another environment) are not shared', async () => {
    const p = pool(4);
    const { req, started } = rig('codex');
    const a = req('one', { type: 'new' });
    const b = req('two', { type: 'new' });
    await p.run('chat:a', 'codex', a);
    await p.run('chat:b', 'codex', { ...b, env: { ...b.env, OTHER: '1' } });
    expect(started()).toHaveLength(2);
  });

  it('the cap counts processes: a chat joining a live process does not wait for room', async () => {
    const p = pool(2, 1);
    const { req, started } = rig('codex');
    const a = await p.run('chat:a', 'codex', req('one', { type: 'new' }));
    // The only process is busy with a's turn; b joins it instead of waiting for a slot.
    const aHang = p.run('chat:a', 'codex', req('hang', resume(a), dir));
    await until(() => p.list(Date.now()).some((x) => x.sessionKey === 'chat:a' && x.busy));
    const b = await p.run('chat:b', 'codex', req('two', { type: 'new' }));
    expect(text(b)).toContain('two');
    expect(started()).toHaveLength(1);
    await p.close('chat:a');
    await p.shutdown(5000);
    expect((await aHang).type).toBe('error');
  });
});

async function until(ok: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}
