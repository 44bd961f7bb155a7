// One agent run: the spec builds the invocation, spawnProcess runs it, the spec parses it. What
// happened to the process (timeout, abort, not installed) wins over whatever it printed: gemini,
// for one, exits 0 after our own SIGTERM.

import { randomUUID } from 'node:crypto';
import { errorMessageFor, shortDetail } from '../agents/common.js';
import { toolInstalls, withToolsIn } from '../agents/sandbox-plan.js';
import { runFileIn, toolRoot, withTools, writeRunFiles } from '../agents/tool-server.js';
import type {
  AgentRequest,
  AgentResult,
  AgentSpec,
  Invocation,
  OutputSize,
  RunOutput,
  StreamEvent,
} from '../agents/types.js';
import { progressTap } from '../core/progress-event.js';
import { maskCredentials } from '../log.js';
import { extractMedia } from '../media/parse.js';
import type { Launcher } from './launcher/client.js';
import { type SpawnResult, spawnProcess } from './spawn.js';
import { watchTrouble } from './trouble.js';

export const DEFAULT_MAX_STDOUT_BYTES = 10 * 1024 * 1024;
export const DEFAULT_MAX_STDERR_BYTES = 1024 * 1024;

/** What the process running the agents lends every cold run. */
export interface RunDeps {
  /**
   * The relay's launcher (`agents.launcher`): the run's processes start from it, not from this
   * process, whose fork would hold its event loop. Absent: they start here.
   */
  launcher?: Launcher;
}

export async function runCommandReply(
  spec: AgentSpec,
  request: AgentRequest,
  deps: RunDeps = {},
): Promise<AgentResult> {
  let inv: Invocation;
  try {
    inv = spec.build(request);
  } catch (err) {
    // A session id or model that could be read as a flag is refused before anything runs.
    return { type: 'error', kind: 'exit', message: (err as Error).message, durationMs: 0 };
  }
  let cleanup: () => Promise<void> = async () => undefined;
  let sandbox = request.sandbox;
  if (request.tools && spec.tools) {
    // The tools' flags and per-run files; without tools the invocation is exactly what build made.
    const runFile = runFileIn(toolRoot(request.stateDir), randomUUID());
    try {
      const wiring = spec.tools(request.tools, runFile);
      inv = withTools(inv, request.tools, wiring);
      cleanup = await writeRunFiles(wiring.files);
      // The MCP helper runs inside too: it sees agentwire's install, this run's files and the tools socket.
      if (sandbox?.type === 'bwrap') {
        const files = (wiring.files ?? []).map((f) => f.path);
        sandbox = {
          ...sandbox,
          plan: withToolsIn(sandbox.plan, request.tools, toolInstalls(request.tools), files),
        };
      }
    } catch (err) {
      return {
        type: 'error',
        kind: 'exit',
        message: 'The agent tools could not be set up.',
        detail: shortDetail((err as Error).message),
        durationMs: 0,
      };
    }
  }
  try {
    return await spawnAndRead(spec, sandbox ? { ...request, sandbox } : request, inv, deps);
  } finally {
    await cleanup();
  }
}

async function spawnAndRead(
  spec: AgentSpec,
  request: AgentRequest,
  inv: Invocation,
  deps: RunDeps,
): Promise<AgentResult> {
  const [file, ...args] = inv.argv;
  if (!file) return { type: 'error', kind: 'exit', message: 'No agent command configured.', durationMs: 0 };

  const nextMessages = spec.messageStream();
  const trouble = watchTrouble(spec, request, deps.launcher);
  let pending: string | undefined;
  const progress = progressOf(spec, request);
  const onStdoutLine = (line: string) => {
    trouble?.line(line);
    progress?.(line);
    if (!request.onProgress) return;
    // A message is known not to be the final reply once the agent carries on or says more.
    for (const ev of safeEvents(nextMessages, line)) {
      if (pending !== undefined) emitProgress(request.onProgress, pending);
      pending = ev.type === 'message' ? ev.text : undefined;
    }
  };

  const r = await spawnProcess({
    file,
    args,
    cwd: request.cwd,
    env: { ...request.env, ...inv.env },
    ...(inv.stdin !== undefined ? { input: inv.stdin } : {}),
    timeoutMs: request.timeoutMs,
    ...signalOf(request.signal, trouble?.signal),
    onStdoutLine,
    ...(trouble ? { onStderrLine: (line: string) => trouble.line(line) } : {}),
    ...(spec.keepLine ? { keepStdoutLine: spec.keepLine } : {}),
    maxStdoutBytes: request.maxStdoutBytes ?? DEFAULT_MAX_STDOUT_BYTES,
    maxStderrBytes: request.maxStderrBytes ?? DEFAULT_MAX_STDERR_BYTES,
    ...(request.sandbox ? { sandbox: request.sandbox } : {}),
    ...(deps.launcher ? { launcher: deps.launcher } : {}),
    // Not lowered, as warm processes are (nice.ts): a lowered cold run gave way to every other
    // process at the normal priority, and in CI the test suites beside it starved fake CLIs into
    // missed due times (docs/performance.md, "Agents' sessions at nice 10").
  });

  const stopped = r.type === 'aborted' ? await trouble?.result(r.durationMs) : undefined;
  if (r.type !== 'aborted' || !stopped) return toAgentResult(spec, inv, r);
  // The session the CLI began before it got stuck is still the chat's to resume.
  const sessionId = inv.sessionId ?? spec.parse(toRunOutput(r)).sessionId;
  return sessionId ? { ...stopped, sessionId } : stopped;
}

function signalOf(a: AbortSignal | undefined, b: AbortSignal | undefined): { signal?: AbortSignal } {
  const signal = a && b ? AbortSignal.any([a, b]) : (a ?? b);
  return signal ? { signal } : {};
}

/** What a finished spawn means as an agent result (pure; also used on captured fixtures). */
export function toAgentResult(spec: AgentSpec, inv: Invocation, r: SpawnResult): AgentResult {
  const file = inv.argv[0] ?? spec.program;
  switch (r.type) {
    case 'not_found':
      return {
        type: 'error',
        kind: 'not_installed',
        message: `${spec.displayName} is not installed: "${file}" was not found on PATH.`,
        durationMs: r.durationMs,
      };
    case 'spawn_failed':
      if (r.sandbox)
        return {
          type: 'error',
          kind: 'sandbox',
          message: errorMessageFor(spec.displayName, 'sandbox'),
          detail: shortDetail(r.message),
          durationMs: r.durationMs,
        };
      // It did start: saying it could not would send the owner after a problem it does not have.
      if (r.launcher === 'died')
        return {
          type: 'error',
          kind: 'exit',
          message: `${spec.displayName} was cut off mid-run because agentwire's launcher process stopped; send the message again.`,
          detail: shortDetail(r.message),
          durationMs: r.durationMs,
        };
      return {
        type: 'error',
        kind: 'exit',
        message: `${spec.displayName} could not be started.`,
        detail: shortDetail(r.message),
        durationMs: r.durationMs,
      };
    case 'timeout':
    case 'aborted': {
      // The session id printed before the stop still lets the chat resume where it was.
      const sessionId = inv.sessionId ?? spec.parse(toRunOutput(r)).sessionId;
      return {
        type: 'error',
        kind: r.type,
        message:
          r.type === 'timeout'
            ? `${spec.displayName} timed out after ${Math.round(r.timeoutMs / 1000)} s.`
            : `${spec.displayName} was stopped.`,
        ...(sessionId ? { sessionId } : {}),
        exitCode: r.exitCode,
        signal: r.signal,
        output: outputOf(r),
        durationMs: r.durationMs,
      };
    }
    case 'exited': {
      const parsed = spec.parse(toRunOutput(r));
      const sessionId = inv.sessionId ?? parsed.sessionId;
      return {
        ...parsed,
        ...(sessionId ? { sessionId } : {}),
        output: outputOf(r),
        durationMs: r.durationMs,
      };
    }
  }
}

/** The run's stdout size and whether the cap cut it: a cut-off reply must show in the log (D12). */
function outputOf(r: { stdoutBytes: number; stdoutTruncated: boolean }): OutputSize {
  return { bytes: r.stdoutBytes, truncated: r.stdoutTruncated };
}

function toRunOutput(r: {
  stdoutLines: string[];
  stderr: string;
  exitCode: number | null;
  signal: string | null;
  stdoutTruncated: boolean;
}): RunOutput {
  return {
    stdoutLines: r.stdoutLines,
    stderr: r.stderr,
    exitCode: r.exitCode,
    signal: r.signal,
    truncated: r.stdoutTruncated,
  };
}

/** The run's progress events when someone listens and the CLI's output shows them. */
function progressOf(spec: AgentSpec, request: AgentRequest): ((line: string) => void) | undefined {
  if (!request.onEvent || !spec.progressStream) return undefined;
  return progressTap(spec.progressStream(), request.onEvent);
}

function safeEvents(next: (line: string) => StreamEvent[], line: string): StreamEvent[] {
  try {
    return next(line);
  } catch {
    return [];
  }
}

function emitProgress(onProgress: (text: string) => void, raw: string): void {
  // Masked like the final reply: with /verbose these lines go to a chat as they come.
  const { text } = extractMedia(maskCredentials(raw));
  try {
    if (text) onProgress(text);
  } catch {
    // A failing listener must not break the run it listens to.
  }
}
