// The session driver seam (the warm pool runs every warm turn through it): one live agent
// process spoken to over its own protocol, turn after turn. A turn ends in the same `AgentResult`
// the cold runner returns, so nothing above a driver knows which one ran.

import type { AgentResult, Approver, PermissionPolicy, SessionRef } from '../agents/types.js';
import type { ProgressListener } from '../core/progress-event.js';
import type { Sandbox } from '../core/sandbox.js';
import type { Launcher } from '../runner/launcher/client.js';

export type { ProgressEvent, ProgressListener } from '../core/progress-event.js';

export type { PermissionPolicy };

/** How a driver starts its long-lived process. */
export interface DriverProcess {
  /** The full argv, program first (e.g. `['gemini', '--acp']`); never passed through a shell. */
  argv: readonly string[];
  cwd: string;
  /** The whole environment of the child: nothing is inherited. */
  env: Record<string, string>;
  /** The agent's sandbox, the process's tools in it (agent.sandbox: bwrap). */
  sandbox?: Sandbox;
  /** Started from the relay's launcher process (`agents.launcher`) rather than the relay. */
  launcher?: Launcher;
}

export interface DriverOptions {
  /** The agent's name as the user sees it in error messages ("Gemini CLI", or a configured ACP agent). */
  name: string;
  process: DriverProcess;
  /** How long start-up, `initialize` and opening a session may take before the process is given up. */
  startTimeoutMs?: number;
  /** After a cancel (timeout, /stop), how long the turn may take to end before the process is killed. */
  cancelGraceMs?: number;
  /**
   * How the agent's permission requests are answered: `allow` / `deny` at once, `ask` through the
   * turn's `approve` (src/drivers/approval.ts), so a turn never waits on a question nobody sees.
   */
  permission: PermissionPolicy;
}

export interface TurnRequest {
  prompt: string;
  /** Wall-clock limit: the turn is cancelled, then the process killed if it does not stop. */
  timeoutMs: number;
  /** Aborting cancels the turn (/stop); the process and the session are kept when it stops in time. */
  signal?: AbortSignal;
  /** Each assistant message before the final one, as the cold runner streams it. */
  onProgress?: (text: string) => void;
  /** What the agent is doing (core/progress-event.ts): every driver maps its protocol onto it. */
  onEvent?: ProgressListener;
  /** With policy `ask`: the person's answer to a permission request (absent: treated as deny). */
  approve?: Approver;
  /** Time the run has waited for a person so far: not counted against `timeoutMs`. */
  personWaitMs?: () => number;
}

export type OpenResult = { type: 'ok'; sessionId: string } | Extract<AgentResult, { type: 'error' }>;

export type SteerResult =
  /** Given to the running turn. */
  | { type: 'steered' }
  /** The protocol cannot add to a running turn (ACP v1): the caller queues it as a follow-up. */
  | { type: 'unsupported' }
  /** No turn is running: the caller runs it as a turn. */
  | { type: 'idle' };

/**
 * Why a process can no longer be trusted. Each ends the running turn with an error and makes the
 * driver `broken`: the pool must close it and start a new process on the same session.
 */
export type DriverFault =
  | { type: 'garbage'; detail: string }
  | { type: 'unknown_response'; id: string }
  | { type: 'duplicate_response'; id: string }
  | { type: 'too_large'; bytes: number }
  | { type: 'exited'; exitCode: number | null; signal: string | null }
  | { type: 'unresponsive'; what: string }
  | { type: 'start_failed'; detail: string }
  /** The agent ended a turn with another turn's end (a stale answer): its session must be reloaded. */
  | { type: 'stale'; detail: string };

export type DriverState =
  | { type: 'idle'; sessionId?: string }
  | { type: 'busy'; sessionId: string }
  /** Must be replaced; `fault` says why. A broken driver refuses turns. */
  | { type: 'broken'; fault: DriverFault }
  | { type: 'closed' };

export interface SessionDriver {
  /** Starts the process if needed and opens (`new`) or resumes a session in it. */
  open(session: SessionRef): Promise<OpenResult>;
  /** One turn on the open session. Never throws: every failure is an error result. */
  turn(request: TurnRequest): Promise<AgentResult>;
  /** Adds a message to the running turn where the protocol allows it. */
  steer(text: string): SteerResult;
  /** Cancels the running turn; resolves when it ended (or the process was killed). */
  cancel(): Promise<void>;
  /** Ends the session, and the process with its last session (TERM, then KILL to the whole group). */
  close(): Promise<void>;
  state(): DriverState;
  /** The process id while one runs (for /status: age, RSS); sessions sharing a process share it. */
  pid(): number | undefined;
}
