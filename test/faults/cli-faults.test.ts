// Faults of the agent CLI and of the store, each through the real relay path (console channel →
// queue → store → runner → a real misbehaving child process → outbox → console), one row per fault.
// Every row checks the same four promises:
//   heard      the user is told something short and true (the exact sentence)
//   not lost   the message's row ended done or failed (never vanished, never stuck running), and
//              every reply row was sent
//   no process nothing the run started is left: the CLI reaped, its grandchildren dead
//   next       the next message in the same chat runs and is answered
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../e2e/helpers.js';
import { leftovers, type Rig, startRig } from './rig.js';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

interface Row {
  fault: string;
  /** The message that triggers the fault. */
  prompt: string;
  /** Exactly what the user reads for it. */
  heard: string[];
  /** How its inbox row ends. */
  status: 'done' | 'failed';
  note?: string | null;
  agent?: Record<string, unknown>;
  /** The fault leaves a grandchild behind to be killed with the group. */
  grandchild?: boolean;
  /** Needs /proc to find what left the group (src/runner/run-mark.ts); elsewhere only the group dies. */
  linuxOnly?: boolean;
}

const ROWS: Row[] = [
  {
    fault: 'CLI exits non-zero with a stack trace',
    prompt: 'please exit:1',
    heard: ['Claude Code failed (exit code 1).'],
    status: 'failed',
    note: 'exit',
  },
  {
    fault: 'CLI dies by SIGKILL',
    prompt: 'please signal:SIGKILL',
    heard: ['Claude Code stopped unexpectedly (SIGKILL).'],
    status: 'failed',
    note: 'exit',
  },
  {
    fault: 'CLI dies by SIGSEGV',
    prompt: 'please signal:SIGSEGV',
    heard: ['Claude Code stopped unexpectedly (SIGSEGV).'],
    status: 'failed',
    note: 'exit',
  },
  {
    fault: 'CLI hangs, ignores SIGTERM, with a grandchild that ignores it too',
    prompt: 'please hang',
    heard: ['Claude Code timed out after 1 s.'],
    status: 'failed',
    note: 'timeout',
    agent: { timeoutSeconds: 1 },
    grandchild: true,
  },
  {
    fault: 'CLI hangs with a grandchild it started in its own session (setsid), out of the group',
    prompt: 'please detach',
    heard: ['Claude Code timed out after 1 s.'],
    status: 'failed',
    note: 'timeout',
    agent: { timeoutSeconds: 1 },
    grandchild: true,
    linuxOnly: true,
  },
  {
    fault: 'CLI floods 100 MB of output before answering',
    prompt: 'please flood',
    heard: [
      'reply: please flood',
      '(The reply was cut short: the agent printed more than the output limit.)',
    ],
    status: 'done',
    note: null,
  },
  {
    fault: 'CLI prints garbage and exits 0',
    prompt: 'please garbage',
    heard: ['Claude Code finished without a reply agentwire could read.'],
    status: 'failed',
    note: 'unparseable',
  },
  {
    fault: 'CLI is cut off half-way through a JSON line',
    prompt: 'please halfjson',
    heard: ['Claude Code finished without a reply agentwire could read.'],
    status: 'failed',
    note: 'unparseable',
  },
  {
    fault: 'CLI waits for more input on stdin',
    prompt: 'please askstdin',
    heard: ['reply: please askstdin (stdin was closed)'],
    status: 'done',
    note: null,
  },
];

describe('faults of the agent CLI, through the console channel', () => {
  it.each(ROWS.filter((r) => !r.linuxOnly || process.platform === 'linux'))('$fault', async (row) => {
    rig = await startRig(row.agent);
    await rig.say(row.prompt);

    // heard
    expect(rig.heard.join('\n\n')).toBe(row.heard.join('\n\n'));
    // not lost
    expect(rig.inbox()).toEqual([{ text: row.prompt, status: row.status, note: row.note ?? null }]);
    expect(rig.outbox().map((o) => o.status)).toEqual(rig.outbox().map(() => 'sent'));
    // no process left
    const pids = rig.pids();
    expect(pids.cli.length).toBeGreaterThan(0);
    expect(pids.grandchildren.length > 0).toBe(Boolean(row.grandchild));
    expect(await leftovers(pids)).toEqual([]);
    // next
    await rig.say('and now this');
    expect(rig.heard.at(-1)).toBe('reply: and now this');
    expect(rig.inbox().at(-1)).toEqual({ text: 'and now this', status: 'done', note: null });
    expect(await leftovers(rig.pids())).toEqual([]);
  });
});

// The same hang as the timeout row, ended by the user instead of the clock (design rule 3: the group
// is killed, TERM then KILL, on timeout or /stop).
describe('/stop on a CLI that ignores SIGTERM, with a grandchild that ignores it too', () => {
  it('the user hears it stopped, nothing is left, the next message runs', async () => {
    rig = await startRig();
    await rig.type('please hang');
    await rig.started(1);
    // The helper is running (and holding the pipes) before the stop comes.
    const r = rig;
    expect(await waitFor(() => r.pids().grandchildren.length === 1)).toBe(true);
    await rig.type('/stop');
    await rig.queue.whenIdle();

    // heard: the command's answer, once; the stopped run adds nothing
    expect(rig.heard).toEqual(['Stopped the agent.']);
    // not lost: the message is finished as stopped (by the user's choice), the answer sent
    expect(rig.inbox()).toEqual([
      { text: 'please hang', status: 'done', note: 'stopped' },
      { text: '/stop', status: 'done', note: 'stop' },
    ]);
    expect(rig.outbox().map((o) => o.status)).toEqual(['sent']);
    // no process left: the group KILL after the TERM grace reached the helper too
    expect(await leftovers(rig.pids())).toEqual([]);
    // next
    await rig.say('and now this');
    expect(rig.heard.at(-1)).toBe('reply: and now this');
    expect(await leftovers(rig.pids())).toEqual([]);
  });
});

// The grandchild that left the process group (setsid), ended by /stop and by shutdown: the group
// kill cannot reach it; the run's mark in its environment does (src/runner/run-mark.ts).
describe.skipIf(process.platform !== 'linux')('a grandchild in its own session (setsid)', () => {
  it('is gone after /stop', async () => {
    rig = await startRig();
    await rig.type('please detach');
    const r = rig;
    expect(await waitFor(() => r.pids().grandchildren.length === 1)).toBe(true);
    await rig.type('/stop');
    await rig.queue.whenIdle();
    expect(rig.heard).toEqual(['Stopped the agent.']);
    expect(await leftovers(rig.pids())).toEqual([]);
  });

  it('is gone after shutdown', async () => {
    rig = await startRig();
    await rig.type('please detach');
    const r = rig;
    expect(await waitFor(() => r.pids().grandchildren.length === 1)).toBe(true);
    await rig.queue.shutdown(0);
    expect(await leftovers(rig.pids())).toEqual([]);
  });
});
