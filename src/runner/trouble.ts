// A run the CLI would retry until its time limit: codex offline or with a refused key says so in
// its retry lines long before it gives up (if it ever does). The watch reads those lines, asks the
// CLI once whether it is signed in, and ends the run as soon as it cannot succeed, with one short
// true sentence instead of a timeout minutes later.
import { notSignedInMessage, shortDetail } from '../agents/common.js';
import type { AgentRequest, AgentResult, AgentSpec, Trouble } from '../agents/types.js';
import type { Launcher } from './launcher/client.js';
import { spawnProcess } from './spawn.js';

/**
 * The sign-in check's own limit: a CLI that cannot even say whether it is signed in is not waited
 * for. The run goes on meanwhile, so a slow answer costs nothing (opencode's `auth list` took 9.8 s
 * on a loaded two-core machine).
 */
const CHECK_TIMEOUT_MS = 30_000;

export interface TroubleWatch {
  /** Reads one line of stdout or stderr. */
  line(line: string): void;
  /** Aborts when the run can no longer succeed. */
  readonly signal: AbortSignal;
  /** The answer for a run this watch stopped; undefined when it did not stop it. */
  result(durationMs: number): Promise<AgentResult | undefined>;
}

export function watchTrouble(
  spec: AgentSpec,
  request: AgentRequest,
  /** The run's launcher, if it has one: the sign-in check starts from it too. */
  launcher?: Launcher,
): TroubleWatch | undefined {
  const read = spec.trouble;
  if (!read) return undefined;
  const stop = new AbortController();
  let stopped: Trouble | undefined;
  let signedOut: Promise<boolean> | undefined;
  const end = (t: Trouble) => {
    if (stopped || request.signal?.aborted) return;
    stopped = t;
    stop.abort();
  };
  return {
    signal: stop.signal,
    line(line) {
      if (stopped) return;
      const t = read(line);
      if (!t) return;
      signedOut ??= isSignedOut(spec, request, launcher);
      if (t.stop) end(t);
      // A reconnect the CLI may still get past, unless it has no sign-in to get past it with.
      else void signedOut.then((out) => out && end(t));
    },
    async result(durationMs) {
      if (!stopped) return undefined;
      return troubleResult(spec, stopped, (await signedOut) ?? false, durationMs);
    },
  };
}

/** The run's answer, in the words a person acts on. */
export function troubleResult(
  spec: Pick<AgentSpec, 'displayName' | 'signIn'>,
  t: Trouble,
  signedOut: boolean,
  durationMs: number,
): AgentResult {
  const name = spec.displayName;
  const detail = shortDetail(t.detail);
  const base = { type: 'error' as const, ...(detail ? { detail } : {}), durationMs };
  if (signedOut && spec.signIn)
    return {
      ...base,
      kind: 'auth',
      message: notSignedInMessage(name, `run \`${spec.signIn.login}\``),
    };
  switch (t.kind) {
    case 'auth':
      return {
        ...base,
        kind: 'auth',
        message: `${name}'s model provider refused its key or login. Check its login or API key on the host.`,
      };
    case 'offline':
      return {
        ...base,
        kind: 'overloaded',
        message: `${name} cannot reach its model provider: the host looks offline. Try again once it is back online.`,
      };
  }
}

/** Whether the CLI says it is not signed in (false when it cannot tell, or the check fails). */
async function isSignedOut(spec: AgentSpec, request: AgentRequest, launcher?: Launcher): Promise<boolean> {
  const check = spec.signIn;
  const [file, ...lead] = request.command;
  if (!check || !file) return false;
  const r = await spawnProcess({
    file,
    args: [...lead, ...check.args],
    cwd: request.cwd,
    env: request.env,
    timeoutMs: CHECK_TIMEOUT_MS,
    maxStdoutBytes: 64 * 1024,
    maxStderrBytes: 64 * 1024,
    ...(launcher && { launcher }),
  });
  return r.type === 'exited' && check.signedOut.test(`${r.stdout}\n${r.stderr}`);
}
