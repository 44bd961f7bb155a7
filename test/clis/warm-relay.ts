// Warm mode through the whole relay (startRelay, queue, pool, store, outbox; relay-rig.ts) with a
// real CLI, in the netns against the fake model server. One relay home per CLI, one chat's
// session carried through every case in order, so the few processes are shared:
//   two turns in one process, and the model sees the first in the second;
//   /stop mid-turn, then a turn in the same process;
//   the process killed mid-turn: the message is answered once, by a new process on the session;
//   a relay restart on the same state folder resumes the session;
//   the pool cap (maxProcesses 1): a second chat's turn closes the idle first process;
//   idle close (a tiny idleMinutes).
// gemini waits for the next wall-clock minute before each resume (two here): see geminiNextMinute.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentKind } from '../../src/agents/types.js';
import { requests, scenario } from './harness.js';
import { type RelayRig, relayRig } from './relay-rig.js';

const A = '+15550000001';
const B = '+15550000002';
/** idleMinutes for the idle-close case: 3 s. */
const IDLE_MINUTES = 0.05;
const CASE_MS = 240_000;

export function defineWarmRelaySuite(kind: AgentKind): void {
  describe(`${kind} warm, through the relay (real CLI)`, () => {
    const id = `${kind}-warm-relay-${randomUUID().slice(0, 8)}`;
    const word = `papaya-${randomUUID().slice(0, 6)}`;
    let rig: RelayRig;
    /** The process serving chat A, and when its last reply came (gemini's minute, below). */
    let pid = 0;
    let lastStart = 0;
    const set = (sc: Parameters<typeof scenario>[1]) => scenario(id, sc);
    const lastBody = async () => JSON.stringify((await requests(id)).at(-1)?.body ?? '');
    const heardSince = (n: number) => rig.sent.slice(n).map((s) => `${s.chatId} ${s.text}`);
    /** Says `text` in chat A while the model hangs; resolves once the model has the request. */
    const hungTurn = async (text: string) => {
      await set({ mode: 'hang' });
      const before = (await requests(id)).length;
      await rig.type(A, text);
      expect(await waitFor(async () => (await requests(id)).length > before)).toBe(true);
    };

    beforeAll(async () => {
      rig = relayRig(kind, await set({ reply: 'Noted.' }));
      await rig.start();
    });
    afterAll(async () => {
      await rig?.stop();
    });

    it('two turns in one process; the model sees the first in the second', { timeout: CASE_MS }, async () => {
      let n = rig.sent.length;
      await rig.say(A, `Remember ${word}.`);
      expect(heardSince(n)).toEqual([`${A} Noted.`]);
      const procs = rig.processes();
      expect(procs).toHaveLength(1);
      pid = procs[0]!;
      lastStart = Date.now();

      await set({ reply: 'It was the fruit.' });
      n = rig.sent.length;
      await rig.say(A, 'Which word?');
      expect(heardSince(n)).toEqual([`${A} It was the fruit.`]);
      expect(rig.processes()).toEqual([pid]);
      const body = await lastBody();
      expect(body).toContain(word);
      expect(body).toContain('Noted.');
      expect(body).toContain('Which word?');
    });

    it('/stop mid-turn, then another turn in the same process', { timeout: CASE_MS }, async () => {
      const n = rig.sent.length;
      await hungTurn('Count to a million.');
      await rig.type(A, '/stop');
      await rig.relay().queue.whenIdle();
      expect(heardSince(n)).toEqual([`${A} Stopped the agent.`]);
      expect(rig.inbox().find((r) => r.text === 'Count to a million.')).toMatchObject({
        status: 'done',
        note: 'stopped',
      });
      expect(rig.processes()).toEqual([pid]);

      await set({ reply: 'Still here.' });
      await rig.say(A, 'Are you still there?');
      expect(heardSince(n).at(-1)).toBe(`${A} Still here.`);
      expect(rig.processes()).toEqual([pid]);
      expect(await lastBody()).toContain(word);
    });

    it('the process killed mid-turn: answered once, by a new process on the same session', {
      timeout: CASE_MS,
    }, async () => {
      await geminiNextMinute(kind, lastStart);
      const n = rig.sent.length;
      await hungTurn('Answer this after a crash.');
      await set({ reply: 'Answered after the crash.' });
      // pid 0 (the first case failed before it was set) would make this kill the test's own group.
      expect(pid).toBeGreaterThan(1);
      process.kill(-pid, 'SIGKILL');
      await rig.relay().queue.whenIdle();
      expect(heardSince(n)).toEqual([`${A} Answered after the crash.`]);
      expect(rig.inbox().at(-1)).toEqual({ text: 'Answer this after a crash.', status: 'done', note: null });
      const procs = rig.processes();
      expect(procs).toHaveLength(1);
      expect(procs[0]).not.toBe(pid);
      pid = procs[0]!;
      lastStart = Date.now();
      expect(await lastBody()).toContain(word);
    });

    it('a relay restart on the same state folder resumes the session', { timeout: CASE_MS }, async () => {
      await rig.stop();
      // No agent process outlives the relay.
      expect(await waitFor(async () => rig.processes().length === 0, 15_000)).toBe(true);
      await geminiNextMinute(kind, lastStart);
      await rig.start({ maxProcesses: 1, idleMinutes: IDLE_MINUTES });
      await set({ reply: 'Back after the restart.' });
      const n = rig.sent.length;
      await rig.say(A, 'Do you remember me?');
      expect(heardSince(n)).toEqual([`${A} Back after the restart.`]);
      const procs = rig.processes();
      expect(procs).toHaveLength(1);
      expect(procs[0]).not.toBe(pid);
      pid = procs[0]!;
      const body = await lastBody();
      expect(body).toContain(word);
      expect(body).toContain('Do you remember me?');
    });

    it('the pool cap (maxProcesses 1): a second chat closes the idle process first', {
      timeout: CASE_MS,
    }, async () => {
      await set({ reply: 'Hello, B.' });
      const n = rig.sent.length;
      await rig.say(B, 'Hello from B.');
      expect(heardSince(n)).toEqual([`${B} Hello, B.`]);
      const procs = rig.processes();
      expect(procs).toHaveLength(1);
      expect(procs[0]).not.toBe(pid);
      // B has a session of its own: A's word is not in it.
      const body = await lastBody();
      expect(body).toContain('Hello from B.');
      expect(body).not.toContain(word);
    });

    it('idle close: the process ends after idleMinutes without a turn', { timeout: CASE_MS }, async () => {
      expect(rig.processes()).toHaveLength(1);
      expect(await waitFor(async () => rig.processes().length === 0, 60_000)).toBe(true);
    });
  });
}

async function waitFor(ok: () => Promise<boolean>, ms = 60_000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await ok()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return ok();
}

/**
 * gemini 0.61 cannot load a session in the wall-clock minute its last process wrote it in (see
 * test/clis/acp.test.ts, geminiNextMinute): wait for the minute after `since`.
 */
export async function geminiNextMinute(kind: AgentKind, since: number): Promise<void> {
  if (kind !== 'gemini') return;
  const next = (Math.floor(since / 60_000) + 1) * 60_000 + 1000;
  if (next > Date.now()) await new Promise((r) => setTimeout(r, next - Date.now()));
}
