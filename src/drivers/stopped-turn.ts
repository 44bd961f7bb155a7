// A warm turn that is stopped (/stop) or runs out of time ends every process it started, as a cold
// run's stop does. The driver cancels the turn in the CLI's own protocol, and the CLI ends the
// command it was running, but not what that command moved out of its reach: a `setsid` child that
// ignores TERM kept running, turn after turn, until the process closed. So once such a turn is over
// (the CLI had its grace to clean up), whatever the turn started and left is killed
// (runner/turn-processes.ts says how a turn's processes are told from the process's others). A
// wrapper around every driver the factory builds, so claude, codex, pi and every ACP agent get it
// alike, without each driver's turn code knowing.
import type { AgentResult } from '../agents/types.js';
import { markOf } from '../runner/spawn.js';
import { endTurnProcesses, turnBegins } from '../runner/turn-processes.js';
import type { SessionDriver, TurnRequest } from './types.js';

/** Whether a turn ended because it was stopped or ran out of time (not on its own). */
export function wasStopped(r: AgentResult, request: Pick<TurnRequest, 'signal'>): boolean {
  if (request.signal?.aborted) return true;
  return r.type === 'error' && (r.kind === 'timeout' || r.kind === 'aborted');
}

/**
 * `toolServer`: agentwire's MCP server's argv as the CLI starts it (command, then arguments), which
 * a stop leaves running when the CLI started it (it serves the process's later turns).
 * `othersBusy`: another chat's session on the same process (a shared codex or ACP process) is
 * mid-turn. Then nothing is ended: by time alone that turn's processes cannot be told from this
 * one's, and ending another chat's command is worse than leaving this turn's leftovers to end with
 * the process.
 */
export function endsStoppedTurns(
  driver: SessionDriver,
  toolServer?: readonly string[],
  othersBusy: () => boolean = () => false,
): SessionDriver {
  const isHelper = (argv: readonly string[]) =>
    toolServer !== undefined &&
    argv.length === toolServer.length &&
    argv.every((a, i) => a === toolServer[i]);
  return {
    open: (session) => driver.open(session),
    async turn(request) {
      const leader = driver.pid();
      const began = leader !== undefined ? turnBegins(leader, markOf(leader)) : undefined;
      const r = await driver.turn(request);
      if (began && wasStopped(r, request) && !othersBusy()) endTurnProcesses(began, isHelper);
      return r;
    },
    steer: (text) => driver.steer(text),
    cancel: () => driver.cancel(),
    close: () => driver.close(),
    state: () => driver.state(),
    pid: () => driver.pid(),
  };
}
