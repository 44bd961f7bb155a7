// The ACP driver against the real `gemini --acp` and `opencode acp` (pinned versions, offline, fake
// model server). With AW_CAPTURE_ACP=<fixtures/agents> every protocol message both ways is written
// to <kind>/warm/acp-<case>.json: the fixtures are captured here, never typed.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import type { AgentKind } from '../../src/agents/types.js';
import { acpDriver } from '../../src/drivers/acp.js';
import type { PermissionPolicy } from '../../src/drivers/types.js';
import { requests, scenario, stateDir, turn, waitNoLeftovers } from './harness.js';

// shellTool: the model's call to the CLI's own shell tool (as the captures show each one offers it).
const CLIS: {
  kind: AgentKind;
  argv: string[];
  pkg: string;
  shellTool: (cmd: string) => { name: string; input: Record<string, unknown> };
}[] = [
  {
    kind: 'gemini',
    argv: ['gemini', '--acp'],
    pkg: '@google/gemini-cli',
    shellTool: (command) => ({
      name: 'run_shell_command',
      input: { command, description: 'Run the scripted tool command' },
    }),
  },
  {
    kind: 'opencode',
    argv: ['opencode', 'acp'],
    pkg: 'opencode-ai',
    shellTool: (command) => ({
      name: 'bash',
      input: { command, description: 'Run the scripted tool command' },
    }),
  },
];

const CAPTURING = Boolean(process.env.AW_CAPTURE_ACP);

interface Capture {
  messages: { dir: 'in' | 'out'; msg: unknown }[];
  steps: { step: string; result: unknown }[];
}

function capturing(): Capture {
  return { messages: [], steps: [] };
}

function save(kind: AgentKind, pkg: string, name: string, argv: string[], c: Capture, scenarioId: string) {
  const out = process.env.AW_CAPTURE_ACP;
  if (!out) return;
  const version = JSON.parse(
    readFileSync(join(inject('clisDir'), kind, 'node_modules', pkg, 'package.json'), 'utf8'),
  ).version as string;
  mkdirSync(join(out, kind, 'warm'), { recursive: true });
  const file = join(out, kind, 'warm', `acp-${name}.json`);
  writeFileSync(
    file,
    `${JSON.stringify(
      {
        cli: kind,
        cli_version: `${pkg}@${version}`,
        argv,
        captured_at: new Date().toISOString(),
        network_isolated: process.env.AGENTWIRE_CLIS_NETNS === '1',
        scenario: scenarioId,
        steps: c.steps,
        messages: c.messages,
      },
      null,
      2,
    )}\n`,
  );
  return file;
}

async function saveRequests(kind: AgentKind, name: string, id: string) {
  const out = process.env.AW_CAPTURE_ACP;
  if (!out) return;
  const reqs = await requests(id);
  writeFileSync(
    join(out, kind, 'warm', `acp-${name}.requests.jsonl`),
    reqs.map((r) => JSON.stringify(r)).join('\n') + (reqs.length ? '\n' : ''),
  );
}

describe.each(CLIS)('ACP driver with real $kind', ({ kind, argv, pkg, shellTool }) => {
  const make = (state: string, base: string, c: Capture, permission: PermissionPolicy = 'deny') => {
    const { request, marker } = turn(kind, state, base, '', { type: 'new' }, 60_000);
    const d = acpDriver({
      name: kind,
      process: {
        argv,
        cwd: request.cwd,
        env: { ...request.env, PATH: `${inject('clisDir')}/bin:${process.env.PATH}` },
      },
      permission,
      startTimeoutMs: 60_000,
      cancelGraceMs: 10_000,
      tap: (dir, msg) => c.messages.push({ dir, msg }),
    });
    return { d, marker };
  };
  const step = async (c: Capture, name: string, p: Promise<unknown>) => {
    const result = await p;
    c.steps.push({ step: name, result });
    return result;
  };

  it('two turns in one process, the second sees the first; then a stop mid-turn and one more turn', async () => {
    const id = `acp-${kind}-turns`;
    const base = await scenario(id, { mode: 'ok', reply: 'First answer.' });
    const state = stateDir(kind);
    const c = capturing();
    const { d, marker } = make(state, base, c);
    try {
      const o = (await step(c, 'open new', d.open({ type: 'new' }))) as { type: string; sessionId: string };
      expect(o.type).toBe('ok');
      const pid = d.pid();
      const a = await step(c, 'turn hello', d.turn({ prompt: 'hello', timeoutMs: 60_000 }));
      expect(a).toMatchObject({ type: 'ok', text: 'First answer.', sessionId: o.sessionId });
      await scenario(id, { mode: 'ok', reply: 'Second answer.' });
      const b = await step(c, 'turn again', d.turn({ prompt: 'second question', timeoutMs: 60_000 }));
      expect(b).toMatchObject({ type: 'ok', text: 'Second answer.' });
      expect(d.pid()).toBe(pid);
      // The model's last request carries the first turn: the session kept its history.
      const reqs = JSON.stringify((await requests(id)).at(-1)?.body ?? '');
      expect(reqs).toContain('hello');
      expect(reqs).toContain('First answer.');

      await scenario(id, { mode: 'hang' });
      const stop = new AbortController();
      const before = (await requests(id)).length;
      const hung = d.turn({ prompt: 'this one hangs', timeoutMs: 60_000, signal: stop.signal });
      await waitFor(async () => (await requests(id)).length > before);
      stop.abort();
      expect(await step(c, 'turn stopped', hung)).toMatchObject({ type: 'error', kind: 'aborted' });
      expect(d.state().type).toBe('idle');
      await scenario(id, { mode: 'ok', reply: 'Third answer.' });
      const third = await step(c, 'turn after stop', d.turn({ prompt: 'after the stop', timeoutMs: 60_000 }));
      expect(third).toMatchObject({ type: 'ok', text: 'Third answer.' });
      expect(d.pid()).toBe(pid);
      // For the docs: what one idle warm process (its whole group) holds in memory.
      c.steps.push({ step: 'idle group RSS (KiB)', result: groupRssKb(pid as number) });
    } finally {
      await d.close();
      save(kind, pkg, 'turns', argv, c, id);
      await saveRequests(kind, 'turns', id);
    }
    expect(await waitNoLeftovers(marker)).toEqual([]);
  });

  // The two resume rows repeat warm-relay-<cli>.test.ts (the same ACP driver, there through the whole
  // relay: killed mid-turn, and a relay restart), and for gemini each waits for the next wall-clock
  // minute: about 4 minutes of the route for nothing new. They run when capturing their fixtures.
  it.runIf(CAPTURING)('a process killed mid-turn is replaced by one that resumes the session', async () => {
    const id = `acp-${kind}-killed`;
    const base = await scenario(id, { mode: 'ok', reply: 'Remember me.' });
    const state = stateDir(kind);
    const c = capturing();
    const first = make(state, base, c);
    const o = (await step(c, 'open new', first.d.open({ type: 'new' }))) as { type: 'ok'; sessionId: string };
    expect(o.type).toBe('ok');
    await step(c, 'turn hello', first.d.turn({ prompt: 'hello', timeoutMs: 60_000 }));
    await scenario(id, { mode: 'hang' });
    const before = (await requests(id)).length;
    const hung = first.d.turn({ prompt: 'killed during this', timeoutMs: 60_000 });
    await waitFor(async () => (await requests(id)).length > before);
    process.kill(-(first.d.pid() as number), 'SIGKILL');
    expect(await step(c, 'turn killed', hung)).toMatchObject({
      type: 'error',
      kind: 'exit',
      signal: 'SIGKILL',
    });
    expect(first.d.state()).toMatchObject({ type: 'broken', fault: { type: 'exited' } });

    await geminiNextMinute(kind);
    await scenario(id, { mode: 'ok', reply: 'Back again.' });
    const second = make(state, base, c);
    try {
      const r = await step(c, 'open resume', second.d.open({ type: 'resume', id: o.sessionId }));
      expect(r).toEqual({ type: 'ok', sessionId: o.sessionId });
      const again = await step(
        c,
        'turn resumed',
        second.d.turn({ prompt: 'are you back', timeoutMs: 60_000 }),
      );
      expect(again).toMatchObject({ type: 'ok', text: 'Back again.' });
      const body = JSON.stringify((await requests(id)).at(-1)?.body ?? '');
      expect(body).toContain('Remember me.');
    } finally {
      await second.d.close();
      save(kind, pkg, 'killed-resume', argv, c, id);
      await saveRequests(kind, 'killed-resume', id);
    }
  });

  it.runIf(CAPTURING)('a session closed cleanly is resumed by a new process (a relay restart)', async () => {
    const id = `acp-${kind}-restart`;
    const base = await scenario(id, { mode: 'ok', reply: 'Remember me.' });
    const state = stateDir(kind);
    const c = capturing();
    const first = make(state, base, c);
    const o = (await step(c, 'open new', first.d.open({ type: 'new' }))) as { type: 'ok'; sessionId: string };
    await step(c, 'turn hello', first.d.turn({ prompt: 'hello', timeoutMs: 60_000 }));
    await first.d.close();
    await geminiNextMinute(kind);
    await scenario(id, { mode: 'ok', reply: 'Back again.' });
    const second = make(state, base, c);
    try {
      const r = await step(c, 'open resume', second.d.open({ type: 'resume', id: o.sessionId }));
      expect(r).toEqual({ type: 'ok', sessionId: o.sessionId });
      const again = await step(
        c,
        'turn resumed',
        second.d.turn({ prompt: 'are you back', timeoutMs: 60_000 }),
      );
      expect(again).toMatchObject({ type: 'ok', text: 'Back again.' });
      expect(JSON.stringify((await requests(id)).at(-1)?.body ?? '')).toContain('Remember me.');
    } finally {
      await second.d.close();
      save(kind, pkg, 'restart-resume', argv, c, id);
      await saveRequests(kind, 'restart-resume', id);
    }
  });

  // What cold mode does with the same tool call: gemini -p offers no shell tool without --yolo, and
  // opencode run lets its agent run bash. Warm mode under the deny policy must match that.
  const coldRunsShell: Partial<Record<AgentKind, boolean>> = { gemini: false, opencode: true };

  it('answers permission requests by policy, so a tool turn does not hang and writes what cold would', async () => {
    const id = `acp-${kind}-tool`;
    const base = await scenario(id, {
      mode: 'tool',
      reply: 'After the tool.',
      tool: shellTool('touch made-by-tool'),
    });
    const state = stateDir(kind);
    const c = capturing();
    const { d } = make(state, base, c, 'deny');
    try {
      expect(await step(c, 'open new', d.open({ type: 'new' }))).toMatchObject({ type: 'ok' });
      const r = await step(c, 'turn tool', d.turn({ prompt: 'run the tool', timeoutMs: 60_000 }));
      expect(r).toMatchObject({ type: 'ok', text: 'After the tool.' });
      expect(existsSync(join(state, 'work', 'made-by-tool'))).toBe(coldRunsShell[kind]);
    } finally {
      await d.close();
      save(kind, pkg, 'tool-deny', argv, c, id);
      await saveRequests(kind, 'tool-deny', id);
    }
  });

  it('a model error ends the turn with its kind and keeps the process', async () => {
    const id = `acp-${kind}-auth`;
    const base = await scenario(id, { mode: 'error', status: 401 });
    const state = stateDir(kind);
    const c = capturing();
    const { d } = make(state, base, c);
    try {
      await step(c, 'open new', d.open({ type: 'new' }));
      const r = await step(c, 'turn 401', d.turn({ prompt: 'hello', timeoutMs: 60_000 }));
      expect(r).toMatchObject({ type: 'error', kind: 'auth' });
    } finally {
      await d.close();
      save(kind, pkg, 'auth', argv, c, id);
      await saveRequests(kind, 'auth', id);
    }
  });
});

/** The summed VmRSS of every process in a process group, in KiB. */
function groupRssKb(pgid: number): number {
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

/**
 * gemini 0.61 cannot load a session in the wall-clock minute it was written in: the new process
 * first re-creates the session's file (same name: date to the minute plus the short id) with only
 * its start-up context, then finds nothing to resume ("No previous sessions found for this
 * project"). A minute later it writes a second file and loads the first. Seen in the captures;
 * the driver reports it as session_not_found. The test waits for the next minute so it can check
 * the rest of the resume.
 */
async function geminiNextMinute(kind: AgentKind): Promise<void> {
  if (kind !== 'gemini') return;
  await new Promise((r) => setTimeout(r, 61_000 - (Date.now() % 60_000)));
}

async function waitFor(ok: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
