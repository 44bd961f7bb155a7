// Which processes carrying a warm process's mark a stopped turn ends: those that started at or after
// the turn began, whatever their parent now is, except the process's leader and agentwire's own tool
// server when the CLI (older than the turn) started it. Table over /proc-like facts; then once for
// real, with a setsid'd, TERM-ignoring child.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { newRunMark, RUN_MARK_ENV } from '../../src/runner/run-mark.js';
import {
  clockTicks,
  endTurnProcesses,
  type ProcInfo,
  readProc,
  turnBegins,
  turnLeftovers,
} from '../../src/runner/turn-processes.js';
import { alive, waitFor } from '../e2e/helpers.js';

const SERVER = ['/usr/bin/node', '/opt/agentwire/dist/cli/bin.js', 'mcp'];
const isServer = (argv: readonly string[]) => argv.join('\0') === SERVER.join('\0');
const cli: ProcInfo = { pid: 10, ppid: 1, start: 50, argv: ['claude'] };
const turn = { leader: 10, since: 100 };

type Row = [string, ProcInfo[], number[]];
const ROWS: Row[] = [
  ['nothing new: nothing ended', [cli, { pid: 11, ppid: 10, start: 60, argv: ['helper'] }], []],
  ['the leader is never ended, even started in the turn', [{ ...cli, start: 120 }], []],
  ['a command the turn ran', [cli, { pid: 12, ppid: 10, start: 130, argv: ['sh', '-c', 'x'] }], [12]],
  [
    'one that started the very tick the turn began',
    [cli, { pid: 12, ppid: 10, start: 100, argv: ['x'] }],
    [12],
  ],
  [
    'a setsid grandchild handed to init',
    [cli, { pid: 13, ppid: 1, start: 140, argv: ['sleep', '600'] }],
    [13],
  ],
  ['an earlier turn’s leftover is kept', [cli, { pid: 14, ppid: 1, start: 90, argv: ['sleep', '600'] }], []],
  [
    'our tool server, started by the CLI mid-turn, is kept',
    [cli, { pid: 15, ppid: 10, start: 150, argv: SERVER }],
    [],
  ],
  [
    'a command that calls itself our tool server is not (its parent is the turn’s)',
    [cli, { pid: 16, ppid: 10, start: 150, argv: ['sh'] }, { pid: 17, ppid: 16, start: 151, argv: SERVER }],
    [16, 17],
  ],
  ['nor once detached (its parent is init)', [cli, { pid: 18, ppid: 1, start: 150, argv: SERVER }], [18]],
];

describe('turnLeftovers', () => {
  it.each(ROWS)('%s', (_name, procs, want) => {
    expect(turnLeftovers(procs, turn, isServer).toSorted()).toEqual(want);
  });
});

describe.skipIf(process.platform !== 'linux')('endTurnProcesses', () => {
  it('ends a setsid, TERM-ignoring process the turn started, and keeps one from before', async () => {
    const mark = newRunMark();
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', [RUN_MARK_ENV]: mark };
    const sleeper = `process.on('SIGTERM', () => {}); setInterval(() => {}, 1000); console.log('up')`;
    const start = (): Promise<number> =>
      new Promise((resolve) => {
        const c = spawn(process.execPath, ['-e', sleeper], {
          detached: true,
          stdio: ['ignore', 'pipe', 'ignore'],
          env,
        });
        c.stdout.once('data', () => resolve(c.pid as number));
      });
    const before = await start();
    // The next tick of the boot clock: the turn begins strictly after `before` started.
    const t0 = clockTicks() as number;
    expect(await waitFor(() => (clockTicks() as number) > t0, 2000)).toBe(true);
    const began = turnBegins(process.pid, mark);
    expect(began).toBeDefined();
    const during = await start();
    try {
      expect(readProc(during)?.start).toBeGreaterThanOrEqual(began?.since as number);
      expect(endTurnProcesses(began as NonNullable<typeof began>)).toBe(1);
      expect(await waitFor(() => !alive(during), 5000)).toBe(true);
      expect(alive(before)).toBe(true);
    } finally {
      for (const pid of [before, during]) if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  });
});
