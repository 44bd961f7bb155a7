// Every kind through the pool and the driver factory, against its fake CLI (real child processes):
// two turns in one process, then each way a process can break (garbage, a response never asked
// for, a duplicate response, death mid-turn, silence past the timeout): the turn ends with a true
// error kind, the process is replaced, and the chat's next message runs in a new process on the
// same session.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { AgentKind, AgentRequest, AgentResult, SessionRef } from '../../src/agents/types.js';
import { createWarmPool, type WarmPool } from '../../src/drivers/pool.js';
import { createLogger } from '../../src/log.js';

const FIX = join(import.meta.dirname, '..', 'fixtures');
const dir = mkdtempSync(join(tmpdir(), 'aw-pool-kinds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const pools: WarmPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.shutdown(5000)));
});

interface Case {
  kind: AgentKind;
  fake: string;
  words: { garbage: string; stranger: string; duplicate: string; die: string; deaf: string };
}
const acpWords = {
  garbage: 'garbage',
  stranger: 'stranger',
  duplicate: 'duplicate',
  die: 'die',
  deaf: 'deaf',
};
const CASES: Case[] = [
  { kind: 'claude', fake: 'fake-claude-stream.mjs', words: acpWords },
  { kind: 'codex', fake: 'fake-codex-app-server.mjs', words: acpWords },
  { kind: 'pi', fake: 'fake-pi-rpc.mjs', words: { ...acpWords, stranger: 'unknown', duplicate: 'dup' } },
  // gemini and opencode speak ACP: the factory adds their flags (`--acp --skip-trust`, `acp`).
  { kind: 'gemini', fake: 'fake-acp-agent.mjs', words: acpWords },
  { kind: 'opencode', fake: 'fake-acp-agent.mjs', words: acpWords },
  { kind: 'acp', fake: 'fake-acp-agent.mjs', words: acpWords },
];

function pool(): WarmPool {
  const p = createWarmPool({
    maxProcesses: 4,
    // The deaf cases wait it out: 5 s each by default.
    cancelGraceMs: 300,
    idleMs: 60_000,
    log: createLogger({ level: 'silent' }),
    cold: () => undefined,
  });
  pools.push(p);
  return p;
}

const req = (c: Case, prompt: string, session: SessionRef, timeoutMs = 10_000): AgentRequest => ({
  prompt,
  session,
  command: [process.execPath, join(FIX, c.fake)],
  cwd: dir,
  stateDir: join(dir, c.kind),
  env: { PATH: process.env.PATH ?? '/usr/bin:/bin', FAKE_CODEX_STATE: dir },
  timeoutMs,
});
const text = (r: AgentResult) => (r.type === 'ok' ? r.text : `${r.type}:${r.kind}`);
const pidOf = (p: WarmPool, key: string) => p.list(Date.now()).find((x) => x.sessionKey === key)?.pid;

describe.each(CASES)('pool with $kind', (c) => {
  it('two turns in one process, the session id returned for the queue to store', async () => {
    const p = pool();
    const a = await p.run('chat:1', c.kind, req(c, 'hello', { type: 'new' }));
    expect(a.type, text(a)).toBe('ok');
    expect(a.sessionId).toMatch(/./);
    const pid = pidOf(p, 'chat:1');
    const b = await p.run('chat:1', c.kind, req(c, 'again', { type: 'resume', id: a.sessionId as string }));
    expect(text(b)).toMatch(/turn 2/);
    expect(b.sessionId).toBe(a.sessionId);
    expect(pidOf(p, 'chat:1')).toBe(pid);
  });

  it.each([
    ['garbage', 'unparseable', 10_000],
    ['stranger', 'unparseable', 10_000],
    ['duplicate', 'unparseable', 10_000],
    ['die', 'exit', 10_000],
    ['deaf', 'timeout', 400],
  ] as const)(
    '%s → %s; replaced, and the next message runs on the same session',
    async (what, kind, timeoutMs) => {
      const p = pool();
      const a = await p.run('chat:f', c.kind, req(c, 'first', { type: 'new' }));
      expect(a.type, text(a)).toBe('ok');
      const session = { type: 'resume', id: a.sessionId as string } as const;
      const pid = pidOf(p, 'chat:f');
      const bad = await p.run('chat:f', c.kind, req(c, c.words[what], session, timeoutMs));
      expect(bad).toMatchObject({ type: 'error', kind });
      const next = await p.run('chat:f', c.kind, req(c, 'next', session));
      expect(text(next)).toMatch(/turn 1/);
      expect(next.sessionId).toBe(a.sessionId);
      expect(pidOf(p, 'chat:f')).not.toBe(pid);
    },
  );
});
