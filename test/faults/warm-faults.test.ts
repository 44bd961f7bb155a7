// Faults of a WARM agent process ("Bad input"), through the relay (startRelay, queue,
// pool, store, outbox; warm-rig.ts) with the fake claude stream-json CLI as a real child process.
// Each row: one good turn (the process is up), then the fault. Every row checks:
//   true kind   the turn ends with the true error kind (the inbox note) and its exact sentence
//   replaced    the next message runs in a new process ("turn 1" again: the fake counts turns per
//               process) on the same session, and the broken process is gone
//   not lost    every message ended done or failed (none vanished or stuck), every reply was sent
//   next        the chat's next message is answered
import { afterEach, describe, expect, it } from 'vitest';
import { alive } from '../e2e/helpers.js';
import { startWarmRig, type WarmRig } from './warm-rig.js';

let rig: WarmRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

interface Row {
  fault: string;
  prompt: string;
  heard: string;
  note: string;
  /** The driver's fault, as the log names it when the process is replaced. */
  broke: string;
  agent?: Record<string, unknown>;
}

const PROTOCOL = 'Claude Code stopped speaking its protocol; it will be restarted for the next message.';

const ROWS: Row[] = [
  {
    fault: 'prints a line that is not JSON',
    prompt: 'garbage please',
    heard: PROTOCOL,
    note: 'unparseable',
    broke: 'garbage',
  },
  {
    fault: 'answers a request never sent',
    prompt: 'stranger please',
    heard: PROTOCOL,
    note: 'unparseable',
    broke: 'unknown_response',
  },
  {
    fault: 'sends a response twice',
    prompt: 'duplicate please',
    heard: PROTOCOL,
    note: 'unparseable',
    broke: 'duplicate_response',
  },
  {
    // The pool runs the message once more in a new process on the session (a CLI killed from
    // outside is answered that way); this one dies again, so the turn ends with the exit.
    fault: 'dies mid-turn',
    prompt: 'die please',
    heard: 'Claude Code failed (exit code 3).',
    note: 'exit',
    broke: 'exited',
  },
  {
    fault: 'goes silent past the timeout (and ignores the interrupt)',
    prompt: 'deaf please',
    heard: 'Claude Code took too long and was stopped.',
    note: 'timeout',
    broke: 'unresponsive',
    agent: { timeoutSeconds: 1 },
  },
];

describe('faults of a warm agent process, through the relay', () => {
  it.each(ROWS)('$fault', async (row) => {
    rig = await startWarmRig(row.agent);
    await rig.say('hello');
    expect(rig.heard).toEqual(['turn 1: hello']);
    const [first, ...more] = rig.starts();
    expect(more).toEqual([]);

    await rig.say(row.prompt);
    // true kind, with its sentence
    expect(rig.heard.slice(1)).toEqual([row.heard]);
    expect(rig.inbox()[1]).toEqual({ text: row.prompt, status: 'failed', note: row.note });
    expect(rig.lines.filter((l) => l.fault !== undefined).map((l) => l.fault)).toContain(row.broke);

    // next: answered by a new process ("turn 1") that resumed the same session
    await rig.say('and now this');
    expect(rig.heard.at(-1)).toBe('turn 1: and now this');
    const last = rig.starts().at(-1)!;
    expect(last.pid).not.toBe(first!.pid);
    expect(last).toMatchObject({ session: first!.session, resume: true });
    // replaced: the broken process is gone
    expect(alive(first!.pid)).toBe(false);
    // not lost
    expect(rig.inbox().map((r) => r.status)).toEqual(['done', 'failed', 'done']);
    expect(rig.outbox()).toEqual(['sent', 'sent', 'sent']);
  });
});
