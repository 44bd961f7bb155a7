// The warm pool over real child processes (the fake codex app-server and fake ACP agent): one
// process per session turn after turn, the cap with LRU of idle processes, idle close, /new, session
// and settings changes, /stop, and a process that breaks being replaced on the same session.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AgentKind, AgentRequest, AgentResult, SessionRef } from '../../src/agents/types.js';
import { createWarmPool, type PoolOptions, type WarmPool } from '../../src/drivers/pool.js';
import { createLogger } from '../../src/log.js';

const FIX = join(import.meta.dirname, '..', 'fixtures');
const CODEX = join(FIX, 'fake-codex-app-server.mjs');
const ACP = join(FIX, 'fake-acp-agent.mjs');
let dir: string;
const pools: WarmPool[] = [];
const logLines: string[] = [];
const log = createLogger({ level: 'info', destination: { write: (l: string) => logLines.push(l) } as never });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'aw-pool-'));
});
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.shutdown(5000)));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function pool(over: Partial<PoolOptions> = {}): WarmPool {
  const p = createWarmPool({
    maxProcesses: 4,
    idleMs: 60_000,
    log,
    cold: () => Promise.resolve({ type: 'error', kind: 'exit', message: 'cold ran', durationMs: 0 }),
    ...over,
  });
  pools.push(p);
  return p;
}

const req = (prompt: string, session: SessionRef, extra: Partial<AgentRequest> = {}): AgentRequest => ({
  prompt,
  session,
  command: [process.execPath, CODEX],
  cwd: dir,
  stateDir: dir,
  env: { PATH: process.env.PATH ?? '/usr/bin:/bin', FAKE_CODEX_STATE: dir },
  timeoutMs: 10_000,
  ...extra,
});

/** A turn, then the session to resume next (as the queue stores it). */
async function ask(
  p: WarmPool,
  sessionKey: string,
  prompt: string,
  session: SessionRef = { type: 'new' },
  kind: AgentKind = 'codex',
  extra: Partial<AgentRequest> = {},
) {
  const r = await p.run(sessionKey, kind, req(prompt, session, extra));
  return { r, next: { type: 'resume', id: r.sessionId as string } as SessionRef };
}

const text = (r: AgentResult) => (r.type === 'ok' ? r.text : `${r.type}:${r.kind}`);
const pidOf = (p: WarmPool, key: string) => p.list(Date.now()).find((x) => x.sessionKey === key)?.pid;

describe('warm pool', () => {
  it('runs turn after turn in one process per session, returning the session id for the queue to store', async () => {
    const p = pool();
    const a = await ask(p, 'chat:a', 'hello');
    expect(a.r).toMatchObject({ type: 'ok', text: 'turn 1: hello (seen 1)' });
    expect(a.r.sessionId).toMatch(/./);
    const pid = pidOf(p, 'chat:a');
    const b = await ask(p, 'chat:a', 'again', a.next);
    expect(text(b.r)).toBe('turn 2: again (seen 2)');
    expect(b.r.sessionId).toBe(a.r.sessionId);
    expect(pidOf(p, 'chat:a')).toBe(pid);
    const [row] = p.list(Date.now());
    expect(row).toMatchObject({ sessionKey: 'chat:a', kind: 'codex', busy: false });
    if (process.platform === 'linux') expect(row?.rssBytes).toBeGreaterThan(1024 * 1024);
  });

  it('/new closes the process; a new session or another session opens a new one', async () => {
    const p = pool();
    const a = await ask(p, 'chat:a', 'one');
    const pid = pidOf(p, 'chat:a');
    await p.close('chat:a');
    expect(p.list(Date.now())).toEqual([]);
    const b = await ask(p, 'chat:a', 'two', { type: 'new' });
    expect(text(b.r)).toBe('turn 1: two (seen 1)');
    expect(b.r.sessionId).not.toBe(a.r.sessionId);
    // Back to the first session: a new process resumes it, with its history.
    const c = await ask(p, 'chat:a', 'three', a.next);
    expect(text(c.r)).toBe('turn 1: three (seen 2)');
    expect(pidOf(p, 'chat:a')).not.toBe(pid);
  });

  it('another model reopens the process on the same session', async () => {
    const p = pool();
    const a = await ask(p, 'chat:m', 'one');
    const pid = pidOf(p, 'chat:m');
    const b = await ask(p, 'chat:m', 'two', a.next, 'codex', { model: 'other' });
    expect(text(b.r)).toBe('turn 1: two (seen 2)');
    expect(pidOf(p, 'chat:m')).not.toBe(pid);
  });

  it('at the cap, closes the least recently used idle process; its chat resumes later in a new one', async () => {
    const p = pool({ maxProcesses: 2 });
    const a = await ask(p, 'chat:a', 'a1');
    const b = await ask(p, 'chat:b', 'b1');
    await ask(p, 'chat:a', 'a2', a.next); // b is now the least recently used
    await ask(p, 'chat:c', 'c1');
    expect(
      p
        .list(Date.now())
        .map((x) => x.sessionKey)
        .sort(),
    ).toEqual(['chat:a', 'chat:c']);
    const b2 = await ask(p, 'chat:b', 'b2', b.next);
    expect(text(b2.r)).toBe('turn 1: b2 (seen 2)');
    expect(p.list(Date.now()).length).toBe(2);
  });

  it('never closes a busy process to make room: the new turn waits for it', async () => {
    const p = pool({ maxProcesses: 1 });
    const order: string[] = [];
    const slow = p.run('chat:a', 'codex', req('slow', { type: 'new' })).then((r) => {
      order.push('a');
      return r;
    });
    await vi.waitFor(() => expect(p.list(Date.now())[0]?.busy).toBe(true), { timeout: 10_000 });
    const other = p.run('chat:b', 'codex', req('hi', { type: 'new' })).then((r) => {
      order.push('b');
      return r;
    });
    const [ra, rb] = await Promise.all([slow, other]);
    expect(text(ra)).toBe('steered:');
    expect(text(rb)).toBe('turn 1: hi (seen 1)');
    expect(order).toEqual(['a', 'b']);
  });

  it('closes a process idle past idleMinutes', async () => {
    const p = pool({ idleMs: 300 });
    await ask(p, 'chat:a', 'hello');
    expect(p.list(Date.now()).length).toBe(1);
    await vi.waitFor(() => expect(p.list(Date.now())).toEqual([]), { timeout: 10_000, interval: 50 });
  });

  it('/stop (the signal) cancels the turn and keeps the process and session', async () => {
    const p = pool();
    const a = await ask(p, 'chat:s', 'first');
    const pid = pidOf(p, 'chat:s');
    const ac = new AbortController();
    const hung = p.run('chat:s', 'codex', req('hang', a.next, { signal: ac.signal }));
    await vi.waitFor(() => expect(p.list(Date.now())[0]?.busy).toBe(true), { timeout: 10_000 });
    ac.abort();
    expect(await hung).toMatchObject({ type: 'error', kind: 'aborted', sessionId: a.r.sessionId });
    const b = await ask(p, 'chat:s', 'after', a.next);
    expect(text(b.r)).toBe('turn 3: after (seen 2)');
    expect(pidOf(p, 'chat:s')).toBe(pid);
  });

  it('steers a running codex turn; an idle session says idle', async () => {
    const p = pool();
    expect(await p.steer('chat:x', 'nobody')).toBe('idle');
    const running = p.run('chat:x', 'codex', req('slow', { type: 'new' }));
    await vi.waitFor(() => expect(p.list(Date.now())[0]?.busy).toBe(true), { timeout: 10_000 });
    expect(await p.steer('chat:x', 'also this')).toBe('steered');
    expect(text(await running)).toBe('steered: also this');
  });

  it('steer on an ACP agent is unsupported (the queue runs it as a follow-up)', async () => {
    const p = pool();
    const ac = new AbortController();
    const running = p.run(
      'chat:acp',
      'acp',
      req('hang', { type: 'new' }, { command: [process.execPath, ACP], signal: ac.signal }),
    );
    await vi.waitFor(() => expect(p.list(Date.now())[0]?.busy).toBe(true), { timeout: 10_000 });
    expect(await p.steer('chat:acp', 'more')).toBe('unsupported');
    ac.abort();
    expect(await running).toMatchObject({ type: 'error', kind: 'aborted' });
  });
});

describe('warm pool: a process that breaks is replaced and the next message runs', () => {
  it.each([
    ['garbage', 'unparseable'],
    ['stranger', 'unparseable'],
    ['duplicate', 'unparseable'],
    ['die', 'exit'],
  ])('%s → %s, new process on the same session', async (prompt, kind) => {
    const p = pool();
    const a = await ask(p, 'chat:f', 'first');
    const pid = pidOf(p, 'chat:f');
    const bad = await ask(p, 'chat:f', prompt, a.next);
    expect(bad.r).toMatchObject({ type: 'error', kind, sessionId: a.r.sessionId });
    const next = await ask(p, 'chat:f', 'next', a.next);
    expect(text(next.r)).toBe('turn 1: next (seen 2)');
    expect(pidOf(p, 'chat:f')).not.toBe(pid);
  });

  it('silence: the turn times out, the deaf process is killed and replaced', async () => {
    const p = pool();
    const a = await ask(p, 'chat:d', 'first');
    const bad = await ask(p, 'chat:d', 'deaf', a.next, 'codex', { timeoutMs: 300 });
    expect(bad.r).toMatchObject({ type: 'error', kind: 'timeout' });
    const next = await ask(p, 'chat:d', 'next', a.next);
    expect(text(next.r)).toBe('turn 1: next (seen 2)');
  });

  it('killed from outside mid-turn: the message is answered once, by a new process on the same session', async () => {
    const p = pool();
    const a = await ask(p, 'chat:k', 'first');
    const running = p.run('chat:k', 'codex', req('slow', a.next));
    await vi.waitFor(() => expect(p.list(Date.now())[0]?.busy).toBe(true), { timeout: 10_000 });
    process.kill(-(pidOf(p, 'chat:k') as number), 'SIGKILL');
    const r = await running;
    expect(r).toMatchObject({ type: 'ok', text: 'steered:', sessionId: a.r.sessionId });
    expect(logLines.some((l) => l.includes('warm process replaced'))).toBe(true);
  });
});

describe('warm pool: a turn re-run after its process died carries what was steered into it', () => {
  it('the new process gets the prompt and the steered text', async () => {
    const p = pool();
    const log = join(dir, 'steer-retry.log');
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', FAKE_CODEX_STATE: dir, FAKE_CODEX_LOG: log };
    const a = await ask(p, 'chat:r', 'first', { type: 'new' }, 'codex', { env });
    const running = p.run('chat:r', 'codex', req('slow', a.next, { env }));
    await vi.waitFor(() => expect(p.list(Date.now())[0]?.busy).toBe(true), { timeout: 10_000 });
    expect(await p.steer('chat:r', 'and the steered part')).toBe('steered');
    process.kill(-(pidOf(p, 'chat:r') as number), 'SIGKILL');
    expect(await running).toMatchObject({ type: 'ok' });
    const starts = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { method?: string; params?: { input?: { text: string }[] } })
      .filter((m) => m.method === 'turn/start');
    expect(
      starts
        .at(-1)
        ?.params?.input?.map((i) => i.text)
        .join(' '),
    ).toContain('and the steered part');
  });
});

describe('warm pool: fallback to cold', () => {
  it('a CLI that is not installed runs cold from then on, logged once, and the turn is answered', async () => {
    const cold = vi.fn(
      async (): Promise<AgentResult> => ({
        type: 'ok',
        text: 'cold answer',
        progress: [],
        media: [],
        truncated: false,
        durationMs: 1,
      }),
    );
    const p = pool({ cold });
    const before = logLines.length;
    const r1 = await ask(p, 'chat:n', 'hi', { type: 'new' }, 'codex', { command: ['aw-no-such-cli-xyz'] });
    const r2 = await ask(p, 'chat:n', 'again', { type: 'new' }, 'codex', { command: ['aw-no-such-cli-xyz'] });
    // The chat whose message met the failure is told once, ahead of the answer.
    expect(text(r1.r)).toMatch(
      /^\(Codex could not start as a live process: it was not found\.[\s\S]*\n\ncold answer$/,
    );
    expect(text(r2.r)).toBe('cold answer');
    expect(cold).toHaveBeenCalledTimes(2);
    expect(p.fallbacks()).toEqual([{ kind: 'codex', reason: expect.stringContaining('not_installed') }]);
    expect(logLines.slice(before).filter((l) => l.includes('runs cold from now on')).length).toBe(1);
  });

  it('an older CLI that refuses the flag (exits at once) falls back too', async () => {
    const cold = vi.fn(
      async (): Promise<AgentResult> => ({
        type: 'ok',
        text: 'cold',
        progress: [],
        media: [],
        truncated: false,
        durationMs: 1,
      }),
    );
    const p = pool({ cold });
    const old = [
      process.execPath,
      '-e',
      'console.error("error: unknown command app-server"); process.exit(2)',
    ];
    const r = await ask(p, 'chat:o', 'hi', { type: 'new' }, 'codex', { command: old });
    expect(text(r.r)).toMatch(
      /^\(Codex could not start as a live process: it exited as it started\.[\s\S]*\n\ncold$/,
    );
    expect(p.fallbacks().map((f) => f.kind)).toEqual(['codex']);
  });

  it('a session that is gone is not a start failure: the error goes back to the queue', async () => {
    const cold = vi.fn();
    const p = pool({ cold });
    const r = await ask(p, 'chat:g', 'hi', { type: 'resume', id: 'gone-thread' }, 'acp', {
      command: [process.execPath, ACP],
    });
    expect(r.r).toMatchObject({ type: 'error' });
    expect(cold).not.toHaveBeenCalled();
    expect(p.fallbacks()).toEqual([]);
  });

  it('an ACP agent has no cold mode: its start error is the answer', async () => {
    const p = pool({ cold: () => undefined });
    const r = await ask(p, 'chat:x', 'hi', { type: 'new' }, 'acp', { command: ['aw-no-such-acp-xyz'] });
    expect(r.r).toMatchObject({ type: 'error', kind: 'not_installed' });
  });
});
