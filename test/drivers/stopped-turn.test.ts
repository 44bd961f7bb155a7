// Which turn endings make the wrapper end the turn's processes: a stop (/stop, the signal) or the
// time limit, never a turn that ended on its own or failed otherwise (a broken process is closed,
// and everything carrying its mark ends with it then).
import { describe, expect, it } from 'vitest';
import type { AgentResult } from '../../src/agents/types.js';
import { endsStoppedTurns, wasStopped } from '../../src/drivers/stopped-turn.js';
import { startStdioChild } from '../../src/runner/spawn-stdio.js';
import { alive, waitFor } from '../e2e/helpers.js';

const ok: AgentResult = { type: 'ok', text: 'hi', progress: [], media: [], truncated: false, durationMs: 1 };
const err = (kind: Extract<AgentResult, { type: 'error' }>['kind']): AgentResult => ({
  type: 'error',
  kind,
  message: 'x',
  durationMs: 1,
});
const aborted = () => {
  const c = new AbortController();
  c.abort();
  return c.signal;
};

const ROWS: [string, AgentResult, AbortSignal | undefined, boolean][] = [
  ['answered', ok, undefined, false],
  ['timed out', err('timeout'), undefined, true],
  ['stopped (/stop)', err('aborted'), undefined, true],
  ['answered, but the signal was aborted meanwhile', ok, aborted(), true],
  ['the CLI died', err('exit'), undefined, false],
  ['the CLI spoke garbage', err('unparseable'), undefined, false],
  ['rate limited', err('rate_limit'), undefined, false],
];

describe('wasStopped', () => {
  it.each(ROWS)('%s', (_name, r, signal, want) => {
    expect(wasStopped(r, signal ? { signal } : {})).toBe(want);
  });
});

// A real marked process (started by the one stdio spawn helper, so it carries its own mark) whose
// "turn" starts a detached child: a stop ends that child, unless another chat's session on the same
// shared process is mid-turn, whose processes the clock cannot tell from this turn's.
describe('endsStoppedTurns on a live process', () => {
  const LEADER = `
    const { spawn } = require('node:child_process');
    process.stdin.on('data', () => {
      const c = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
      c.unref();
      process.stdout.write(c.pid + '\\n');
    });`;

  async function stoppedTurnLeaves(othersBusy: boolean): Promise<boolean> {
    const s = await startStdioChild({
      file: process.execPath,
      args: ['-e', LEADER],
      env: { PATH: process.env.PATH ?? '' },
    });
    if (s.type !== 'started') throw new Error(s.type);
    const leader = s.child;
    let childPid = 0;
    const driver = {
      open: async () => ({ type: 'ok' as const, sessionId: 's' }),
      turn: async (): Promise<AgentResult> => {
        const line = new Promise<string>((r) => leader.stdout.once('data', (d: Buffer) => r(String(d))));
        leader.stdin.write('go\n');
        childPid = Number((await line).trim());
        return err('aborted');
      },
      steer: () => ({ type: 'idle' as const }),
      cancel: async () => {},
      close: async () => {},
      state: () => ({ type: 'idle' as const }),
      pid: () => leader.pid,
    };
    try {
      await endsStoppedTurns(driver, undefined, () => othersBusy).turn({ prompt: 'x', timeoutMs: 1000 });
      const gone = await waitFor(() => !alive(childPid), othersBusy ? 300 : 5000);
      return !gone;
    } finally {
      if (childPid && alive(childPid)) process.kill(childPid, 'SIGKILL');
      await leader.stop(100);
    }
  }

  it('a stop ends what the turn started', async () => {
    expect(await stoppedTurnLeaves(false)).toBe(false);
  });

  it("a stop while another chat's session on the process is mid-turn ends nothing", async () => {
    expect(await stoppedTurnLeaves(true)).toBe(true);
  });
});
