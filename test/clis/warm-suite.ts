// The scenarios every warm driver test against a real CLI runs (claude-warm, codex-warm, pi-warm,
// acp for gemini and opencode), defined once: two turns with a stop, a kill and a restart each
// followed by a resume, a shell tool call, a model error. What differs between the CLIs (protocol,
// capture names, what each can and cannot do) is data in a WarmCli; what only one CLI does stays in
// its own file.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { expect, inject, it } from 'vitest';
import type { AgentKind } from '../../src/agents/types.js';
import type { OpenResult, PermissionPolicy, SessionDriver } from '../../src/drivers/types.js';
import type { ToolCall } from './fake-model/scenario.js';
import { requests, scenario, stateDir, turn, waitNoLeftovers } from './harness.js';
import { type Capture, capturing, lastBody, step } from './warm-capture.js';

export interface MakeOptions {
  permission?: PermissionPolicy;
  /** More argv after the program (pi's `-e <extension>`). */
  extra?: string[];
}

export interface Started {
  d: SessionDriver;
  marker: string;
}

/** A shell tool case: the turn must end 'After the tool.'; `check` says what else holds. */
export interface ToolCase {
  title: string;
  /** The scenario is `<idPrefix>-<id>`; the capture file `<file ?? id>`. */
  id: string;
  file?: string;
  call: ToolCall;
  make: MakeOptions;
  /** Inside the driver's life, before close and save. */
  check: (x: { state: string; c: Capture }) => void | Promise<void>;
  /** After the driver closed and the capture is saved. */
  after?: (x: { state: string; base: string }) => Promise<void>;
}

export interface WarmCli {
  kind: AgentKind;
  /** Scenario ids are `<idPrefix>-<case>`. */
  idPrefix: string;
  make: (state: string, base: string, c: Capture, o?: MakeOptions) => Started;
  /** Writes the capture as `<file>` when the suite's capture variable is set. */
  save: (file: string, c: Capture, scenarioId: string) => Promise<void>;
  /** What a resume reopens, in the test names: the CLI's own word. */
  resumes: 'session' | 'thread' | 'session file';
  turns: {
    /** The first turn's prompt and reply (pi's carry U+2028: its reader must not split there). */
    prompt?: string;
    reply?: string;
    /** Besides `type` and `text`, what the second turn's result carries. */
    second?: (sessionId: string) => Record<string, unknown>;
    /** Besides the first prompt and reply, what the model's last request of turn two carries. */
    history?: string[];
    /** The session id is a file path (pi), and the file is there after the first turn. */
    sessionIsFile?: boolean;
    /** The state after the stop names the session too (claude). */
    idleWithSession?: boolean;
    /**
     * A steer into the hung turn before it is stopped: `unsupported`, or `steered` with where the
     * text goes (`once`: into the next turn exactly once; `kept`: the next turn carries it) and,
     * optionally, the protocol's answer to wait for before the stop.
     */
    steer?:
      | { type: 'unsupported'; text: string }
      | { type: 'steered'; text: string; next: 'once' | 'kept'; acked?: (c: Capture) => boolean };
  };
  resume: {
    /** The resumed turn after a kill also reports the session id. */
    killedKeepsSessionId?: boolean;
    /** After the restart's resume, opening this unknown id is session_not_found. */
    unknownId?: string;
    /** Waited for before the second process starts (gemini: the next wall-clock minute). */
    wait?: () => Promise<void>;
    /** Why the two resume cases do not run here (acp: outside a capture); shown in their names. */
    skip?: string;
  };
  tools: ToolCase[];
  auth: {
    /** The reply of a turn after the error, in the same process; none where it is not checked. */
    recovers?: string;
  };
}

/** Asserts an open succeeded and narrows it. */
export function opened(o: OpenResult): { type: 'ok'; sessionId: string } {
  expect(o, JSON.stringify(o)).toMatchObject({ type: 'ok' });
  return o as { type: 'ok'; sessionId: string };
}

/** What every driver takes: the turn's folder and environment (real CLIs on PATH), start-up and
 * cancel limits, and a tap into the capture. */
export function driverBase(
  kind: AgentKind,
  state: string,
  base: string,
  c: Capture,
  argv: readonly string[],
  permission: PermissionPolicy = 'deny',
) {
  const { request, marker } = turn(kind, state, base, '', { type: 'new' }, 60_000);
  const options = {
    process: {
      argv,
      cwd: request.cwd,
      env: { ...request.env, PATH: `${inject('clisDir')}/bin:${process.env.PATH}` },
    },
    permission,
    startTimeoutMs: 60_000,
    cancelGraceMs: 10_000,
    tap: (dir: 'in' | 'out', msg: unknown) => c.messages.push({ dir, msg }),
  };
  return { request, marker, options };
}

/** Defines the shared cases inside the caller's describe. */
export function warmScenarios(cli: WarmCli): void {
  const { kind, make, save, turns: t } = cli;
  const id = (what: string) => `${cli.idPrefix}-${what}`;
  const steered = t.steer?.type === 'steered';
  const closedNoun = cli.resumes === 'thread' ? 'thread' : 'session';

  it(`two turns in one process, the second sees the first; ${steered ? 'a steer and a stop mid-turn, then' : 'then a stop mid-turn and'} one more turn`, async () => {
    const sc = id('turns');
    const prompt = t.prompt ?? 'hello';
    const reply = t.reply ?? 'First answer.';
    const base = await scenario(sc, { mode: 'ok', reply });
    const c = capturing();
    const { d, marker } = make(stateDir(kind), base, c);
    try {
      const o = opened(await step(c, 'open new', d.open({ type: 'new' })));
      const pid = d.pid();
      const a = await step(c, 'turn hello', d.turn({ prompt, timeoutMs: 60_000 }));
      expect(a).toMatchObject({ type: 'ok', text: reply, sessionId: o.sessionId });
      if (t.sessionIsFile) expect(existsSync(o.sessionId)).toBe(true);
      await scenario(sc, { mode: 'ok', reply: 'Second answer.' });
      const b = await step(c, 'turn again', d.turn({ prompt: 'second question', timeoutMs: 60_000 }));
      expect(b).toMatchObject({ type: 'ok', text: 'Second answer.', ...t.second?.(o.sessionId) });
      expect(d.pid()).toBe(pid);
      // The model's last request carries the first turn: the session kept its history.
      const body = await lastBody(sc);
      for (const s of [prompt, reply, ...(t.history ?? [])]) expect(body).toContain(s);

      await scenario(sc, { mode: 'hang' });
      const stop = new AbortController();
      const before = (await requests(sc)).length;
      const hung = d.turn({ prompt: 'this one hangs', timeoutMs: 60_000, signal: stop.signal });
      await waitFor(async () => (await requests(sc)).length > before);
      if (t.steer) expect(d.steer(t.steer.text)).toEqual({ type: t.steer.type });
      const acked = t.steer?.type === 'steered' ? t.steer.acked : undefined;
      if (acked) await waitFor(async () => acked(c));
      stop.abort();
      expect(await step(c, 'turn stopped', hung)).toMatchObject({ type: 'error', kind: 'aborted' });
      if (t.idleWithSession) expect(d.state()).toEqual({ type: 'idle', sessionId: o.sessionId });
      else expect(d.state().type).toBe('idle');
      await scenario(sc, { mode: 'ok', reply: 'Third answer.' });
      const third = await step(c, 'turn after stop', d.turn({ prompt: 'after the stop', timeoutMs: 60_000 }));
      expect(third).toMatchObject({ type: 'ok', text: 'Third answer.' });
      expect(d.pid()).toBe(pid);
      if (t.steer?.type === 'steered') {
        // codex drops input steered into a turn that is then interrupted (the driver carries it into
        // the next turn, once); pi keeps it and sends it with the next prompt itself.
        const after = await lastBody(sc);
        expect(after).toContain('after the stop');
        if (t.steer.next === 'once') expect(after.split(t.steer.text).length - 1).toBe(1);
        else expect(after).toContain(t.steer.text);
      }
      // For the docs: what one idle warm process (its whole group) holds in memory.
      c.steps.push({ step: 'idle group RSS (KiB)', result: groupRssKb(pid as number) });
    } finally {
      await d.close();
      await save('turns', c, sc);
    }
    expect(await waitNoLeftovers(marker)).toEqual([]);
  });

  /** A first process opens a new session and answers 'Remember me.' in it. */
  const firstProcess = async (sc: string) => {
    const base = await scenario(sc, { mode: 'ok', reply: 'Remember me.' });
    const state = stateDir(kind);
    const c = capturing();
    const first = make(state, base, c);
    const o = opened(await step(c, 'open new', first.d.open({ type: 'new' })));
    const hello = await step(c, 'turn hello', first.d.turn({ prompt: 'hello', timeoutMs: 60_000 }));
    expect(hello).toMatchObject({ type: 'ok' });
    return { base, state, c, first, o };
  };
  /** The first process is gone: a second one starts. */
  const secondProcess = async (sc: string, state: string, base: string, c: Capture) => {
    await cli.resume.wait?.();
    await scenario(sc, { mode: 'ok', reply: 'Back again.' });
    return make(state, base, c);
  };
  /** It resumes the session and runs a turn in it. */
  const resumeIn = async (second: Started, c: Capture, sessionId: string) => {
    const r = await step(c, 'open resume', second.d.open({ type: 'resume', id: sessionId }));
    expect(r).toEqual({ type: 'ok', sessionId });
    return step(c, 'turn resumed', second.d.turn({ prompt: 'are you back', timeoutMs: 60_000 }));
  };
  const skipResume = cli.resume.skip;
  const skipNote = skipResume ? ` (skipped: ${skipResume})` : '';

  it.skipIf(skipResume !== undefined)(
    `a process killed mid-turn is replaced by one that resumes the ${cli.resumes}${skipNote}`,
    async () => {
      const sc = id('killed');
      const { base, state, c, first, o } = await firstProcess(sc);
      await scenario(sc, { mode: 'hang' });
      const before = (await requests(sc)).length;
      const hung = first.d.turn({ prompt: 'killed during this', timeoutMs: 60_000 });
      await waitFor(async () => (await requests(sc)).length > before);
      process.kill(-(first.d.pid() as number), 'SIGKILL');
      expect(await step(c, 'turn killed', hung)).toMatchObject({
        type: 'error',
        kind: 'exit',
        signal: 'SIGKILL',
      });
      expect(first.d.state()).toMatchObject({ type: 'broken', fault: { type: 'exited' } });
      const second = await secondProcess(sc, state, base, c);
      try {
        expect(await resumeIn(second, c, o.sessionId)).toMatchObject({
          type: 'ok',
          text: 'Back again.',
          ...(cli.resume.killedKeepsSessionId ? { sessionId: o.sessionId } : {}),
        });
        expect(await lastBody(sc)).toContain('Remember me.');
      } finally {
        await second.d.close();
        await save('killed-resume', c, sc);
      }
    },
  );

  it.skipIf(skipResume !== undefined)(
    `a ${closedNoun} closed cleanly is resumed by a new process (a relay restart)${skipNote}`,
    async () => {
      const sc = id('restart');
      const { base, state, c, first, o } = await firstProcess(sc);
      await first.d.close();
      expect(first.d.state()).toEqual({ type: 'closed' });
      const second = await secondProcess(sc, state, base, c);
      try {
        expect(await resumeIn(second, c, o.sessionId)).toMatchObject({ type: 'ok', text: 'Back again.' });
        expect(await lastBody(sc)).toContain('Remember me.');
        if (cli.resume.unknownId) {
          const gone = await step(
            c,
            'open unknown',
            second.d.open({ type: 'resume', id: cli.resume.unknownId }),
          );
          expect(gone).toMatchObject({ type: 'error', kind: 'session_not_found' });
        }
      } finally {
        await second.d.close();
        await save('restart-resume', c, sc);
      }
    },
  );

  for (const tc of cli.tools) {
    it(tc.title, async () => {
      const sc = id(tc.id);
      const base = await scenario(sc, { mode: 'tool', reply: 'After the tool.', tool: tc.call });
      const state = stateDir(kind);
      const c = capturing();
      const { d } = make(state, base, c, tc.make);
      try {
        expect(await step(c, 'open new', d.open({ type: 'new' }))).toMatchObject({ type: 'ok' });
        const r = await step(c, 'turn tool', d.turn({ prompt: 'run the tool', timeoutMs: 60_000 }));
        expect(r).toMatchObject({ type: 'ok', text: 'After the tool.' });
        await tc.check({ state, c });
      } finally {
        await d.close();
        await save(tc.file ?? tc.id, c, sc);
      }
      await tc.after?.({ state, base });
    });
  }

  it('a model error ends the turn with its kind and keeps the process', async () => {
    const sc = id('auth');
    const base = await scenario(sc, { mode: 'error', status: 401 });
    const c = capturing();
    const { d } = make(stateDir(kind), base, c);
    try {
      expect(await step(c, 'open new', d.open({ type: 'new' }))).toMatchObject({ type: 'ok' });
      const pid = d.pid();
      const r = await step(c, 'turn 401', d.turn({ prompt: 'hello', timeoutMs: 60_000 }));
      expect(r).toMatchObject({ type: 'error', kind: 'auth' });
      expect(d.state().type).toBe('idle');
      const recovers = cli.auth.recovers;
      if (recovers) {
        await scenario(sc, { mode: 'ok', reply: recovers });
        const next = await step(c, 'turn after', d.turn({ prompt: 'again', timeoutMs: 60_000 }));
        expect(next).toMatchObject({ type: 'ok', text: recovers });
        expect(d.pid()).toBe(pid);
      }
    } finally {
      await d.close();
      await save('auth', c, sc);
    }
  });
}

/** The summed VmRSS of every process in a process group, in KiB. */
export function groupRssKb(pgid: number): number {
  let total = 0;
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'latin1');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) !== pgid) continue;
      const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'latin1'));
      total += m ? Number(m[1]) : 0;
    } catch {
      // gone
    }
  }
  return total;
}

/** Polls `ok` every 50 ms until it holds; throws after `ms`. */
export async function waitFor(ok: () => Promise<boolean> | boolean, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
