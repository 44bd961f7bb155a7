// Several chats' sessions on one live process (codex app-server threads, ACP sessions), against the
// fake CLIs as real child processes: each session keeps its own context, turns interleave, one
// chat's /stop or stuck turn leaves the other's turn alone, and a crash ends both.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { AgentResult } from '../../src/agents/types.js';
import { type AcpDriverOptions, acpDriver, acpHost } from '../../src/drivers/acp.js';
import { type CodexDriverOptions, codexDriver, codexHost } from '../../src/drivers/codex.js';
import type { SessionDriver } from '../../src/drivers/types.js';

const FIX = join(import.meta.dirname, '..', 'fixtures');
const dir = mkdtempSync(join(tmpdir(), 'aw-shared-host-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const drivers: SessionDriver[] = [];
afterEach(async () => {
  await Promise.all(drivers.splice(0).map((d) => d.close()));
});

interface Kind {
  name: string;
  fake: string;
  startsEnv: string;
  /** A host and `n` sessions on it, each given its own options. */
  make(n: number, starts: string, grace?: number): SessionDriver[];
}

const base = (fake: string, starts: string, startsEnv: string, grace = 2000) => ({
  name: 'Agent',
  permission: 'deny' as const,
  process: {
    argv: [process.execPath, join(FIX, fake)],
    cwd: dir,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', [startsEnv]: starts, FAKE_CODEX_LOG: `${starts}.log` },
  },
  cancelGraceMs: grace,
  startTimeoutMs: 15_000,
});

const KINDS: Kind[] = [
  {
    name: 'codex',
    fake: 'fake-codex-app-server.mjs',
    startsEnv: 'FAKE_CODEX_STARTS',
    make(n, starts, grace) {
      const o: CodexDriverOptions = base(this.fake, starts, this.startsEnv, grace);
      const host = codexHost(o);
      return Array.from({ length: n }, () => codexDriver({ ...o, host }));
    },
  },
  {
    name: 'ACP',
    fake: 'fake-acp-agent.mjs',
    startsEnv: 'FAKE_ACP_STARTS',
    make(n, starts, grace) {
      const o: AcpDriverOptions = base(this.fake, starts, this.startsEnv, grace);
      const host = acpHost(o);
      return Array.from({ length: n }, () => acpDriver({ ...o, host }));
    },
  },
];

let seq = 0;
function setUp(k: Kind, n: number, grace?: number) {
  const starts = join(dir, `starts-${++seq}`);
  const ds = k.make(n, starts, grace);
  drivers.push(...ds);
  const lines = (f: string) => (existsSync(f) ? readFileSync(f, 'utf8').split('\n').filter(Boolean) : []);
  return {
    ds,
    starts: () => lines(starts),
    codexLog: () => lines(`${starts}.log`).map((l) => JSON.parse(l)),
  };
}

async function open(d: SessionDriver): Promise<string> {
  const o = await d.open({ type: 'new' });
  if (o.type !== 'ok') throw new Error(`open failed: ${o.message} ${o.detail ?? ''}`);
  return o.sessionId;
}

const text = (r: AgentResult) => (r.type === 'ok' ? r.text : `${r.type}:${r.kind}`);
const turn = (d: SessionDriver, prompt: string, more: { timeoutMs?: number; signal?: AbortSignal } = {}) =>
  d.turn({ prompt, timeoutMs: more.timeoutMs ?? 10_000, ...(more.signal ? { signal: more.signal } : {}) });

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(what: string, ok: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.each(KINDS)('$name: sessions sharing one process', (k) => {
  it('two chats on one process, each with its own session and context', async () => {
    const { ds, starts } = setUp(k, 2);
    const [a, b] = ds as [SessionDriver, SessionDriver];
    const [sa, sb] = [await open(a), await open(b)];
    expect(sa).not.toBe(sb);
    expect(a.pid()).toBeDefined();
    expect(b.pid()).toBe(a.pid());
    expect(text(await turn(a, 'apples are red'))).toContain('apples are red');
    expect(text(await turn(b, 'bananas are yellow'))).toContain('bananas are yellow');
    expect(text(await turn(a, 'recall'))).toBe('recall: apples are red');
    expect(text(await turn(b, 'recall'))).toBe('recall: bananas are yellow');
    expect(starts()).toHaveLength(1);
  });

  it("interleaved turns, and one chat's /stop leaves the other's turn and the process alone", async () => {
    const { ds } = setUp(k, 2);
    const [a, b] = ds as [SessionDriver, SessionDriver];
    await open(a);
    await open(b);
    const pid = a.pid() as number;
    const stop = new AbortController();
    const hung = turn(a, 'hang', { signal: stop.signal });
    await until('a busy', () => a.state().type === 'busy');
    // b's whole turn runs while a's is still going.
    const mid = await turn(b, 'while a waits');
    expect(text(mid)).toContain('while a waits');
    expect(a.state().type).toBe('busy');
    // b mid-turn as a is stopped: a ends as stopped, b's turn is untouched.
    const bHang = new AbortController();
    const bTurn = turn(b, 'hang', { signal: bHang.signal });
    await until('b busy', () => b.state().type === 'busy');
    stop.abort();
    expect(await hung).toMatchObject({ type: 'error', kind: 'aborted' });
    expect(b.state().type).toBe('busy');
    bHang.abort();
    expect(await bTurn).toMatchObject({ type: 'error', kind: 'aborted' });
    expect(text(await turn(a, 'after the stop'))).toContain('after the stop');
    expect(text(await turn(b, 'recall'))).toBe('recall: while a waits | hang');
    expect(a.pid()).toBe(pid);
    expect(alive(pid)).toBe(true);
  });

  it("a turn that will not stop breaks its session only; the process waits for the other's turn", async () => {
    const { ds } = setUp(k, 3, 300);
    const [a, b, c] = ds as [SessionDriver, SessionDriver, SessionDriver];
    await open(a);
    await open(b);
    await open(c);
    const pid = a.pid() as number;
    const bHang = new AbortController();
    const bTurn = turn(b, 'hang', { signal: bHang.signal });
    await until('b busy', () => b.state().type === 'busy');
    // a's timeout, then the grace: a is given up, but b is mid-turn on the same process.
    expect(await turn(a, 'deaf', { timeoutMs: 200 })).toMatchObject({ type: 'error', kind: 'timeout' });
    expect(a.state().type).toBe('broken');
    expect(b.state().type).toBe('busy');
    expect(alive(pid)).toBe(true);
    // c was idle: it takes no new turn on a process given up (the pool reopens it elsewhere).
    expect(c.state().type).toBe('broken');
    // b ends its turn normally (here: stopped in time), then the process is killed.
    bHang.abort();
    expect(await bTurn).toMatchObject({ type: 'error', kind: 'aborted' });
    await until('the process killed', () => !alive(pid));
    await until('b broken', () => b.state().type === 'broken');
  });

  it('a crash ends every session on the process', async () => {
    const { ds } = setUp(k, 2);
    const [a, b] = ds as [SessionDriver, SessionDriver];
    await open(a);
    await open(b);
    const pid = a.pid() as number;
    const bHang = turn(b, 'hang');
    await until('b busy', () => b.state().type === 'busy');
    const died = await turn(a, 'die');
    expect(died).toMatchObject({ type: 'error', kind: 'exit' });
    expect(await bHang).toMatchObject({ type: 'error', kind: 'exit' });
    expect(a.state()).toMatchObject({ type: 'broken', fault: { type: 'exited' } });
    expect(b.state()).toMatchObject({ type: 'broken', fault: { type: 'exited' } });
    expect(alive(pid)).toBe(false);
  });

  it('the process ends with its last session, not before', async () => {
    const { ds, codexLog } = setUp(k, 2);
    const [a, b] = ds as [SessionDriver, SessionDriver];
    const sa = await open(a);
    await open(b);
    const pid = a.pid() as number;
    await a.close();
    expect(alive(pid)).toBe(true);
    // codex is told to unload the closed chat's thread (ACP v1 has no such request).
    if (k.name === 'codex')
      expect(codexLog().filter((m) => m.method === 'thread/unsubscribe')).toEqual([
        expect.objectContaining({ params: { threadId: sa } }),
      ]);
    expect(text(await turn(b, 'still here'))).toContain('still here');
    await b.close();
    await until('the process gone', () => !alive(pid));
  });
});
