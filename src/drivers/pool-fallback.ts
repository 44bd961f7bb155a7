// The CLIs that run cold because their warm start failed (pool-policy `isStartFailure`, or a start
// that did not answer within the start limit): from the first such failure on, every turn of that
// CLI runs as one process per message, until the relay restarts. The owner is told in the log,
// `status`, and the chat whose message hit it; each says what happened, what the relay does now,
// and how to get warm back.
import { getSpec } from '../agents/registry.js';
import type { AgentKind, AgentRequest, AgentResult, SessionRef } from '../agents/types.js';
import type { Logger } from '../log.js';
import { noCold } from './pool-policy.js';
import type { OpenResult, SessionDriver } from './types.js';

/**
 * How long a warm start may take before its process is taken for one that will never speak the
 * protocol (an `agent.command` wrapper that does not pass it through waits silently on its input).
 * The five CLIs start warm in 0.5-5 s on a 2-core machine (docs/performance.md); the drivers' own
 * limit, 60 s, cost every relay start's first message a minute.
 */
export const START_LIMIT_MS = 20_000;

/** The start's answer, or a timeout result once `ms` passed without one (the caller closes the driver). */
export async function openWithin(
  driver: SessionDriver,
  session: SessionRef,
  ms: number,
): Promise<{ result: OpenResult; silent: boolean }> {
  let timer: NodeJS.Timeout | undefined;
  const silent = new Promise<'silent'>((resolve) => {
    timer = setTimeout(() => resolve('silent'), ms);
  });
  const started = performance.now();
  const r = await Promise.race([driver.open(session), silent]).finally(() => clearTimeout(timer));
  if (r !== 'silent') return { result: r, silent: false };
  const result: OpenResult = {
    type: 'error',
    kind: 'timeout',
    message: 'The agent did not start in time.',
    detail: `no answer to its start within ${Math.round(ms / 1000)} s`,
    durationMs: Math.round(performance.now() - started),
  };
  return { result, silent: true };
}

const nameOf = (kind: AgentKind): string => {
  try {
    return getSpec(kind).displayName;
  } catch {
    return kind;
  }
};

/** Why, in words fit for a chat: the reason's kind only (the CLI's own words stay in the log). */
function why(reason: string): string {
  switch (reason.split(':')[0]) {
    case 'timeout':
      return 'it did not answer its start in time';
    case 'not_installed':
      return 'it was not found';
    case 'unparseable':
      return 'it did not speak its protocol';
    case 'exit':
      return 'it exited as it started';
    default:
      return 'its start failed';
  }
}

/** What the chat whose message hit the failure reads before its answer. */
export function fallbackNotice(kind: AgentKind, reason: string): string {
  return (
    `(${nameOf(kind)} could not start as a live process: ${why(reason)}. So this message and the next ` +
    'ones run as one process each, which is slower, until the relay restarts. If `agent.command` ' +
    'wraps the CLI, it must pass its protocol through; `agentwire doctor` checks the agent.)'
  );
}

export class Fallbacks {
  private readonly reasons = new Map<AgentKind, string>();

  constructor(
    /** The one-shot run of a kind; undefined for a kind with no cold mode (acp). */
    private readonly run: (kind: AgentKind, request: AgentRequest) => Promise<AgentResult> | undefined,
    private readonly log: Logger,
  ) {}

  has(kind: AgentKind): boolean {
    return this.reasons.has(kind);
  }

  cold(kind: AgentKind, request: AgentRequest): Promise<AgentResult> {
    return this.run(kind, request) ?? Promise.resolve(noCold(kind));
  }

  /** From now on this kind runs cold (logged once); this request too, so it is still answered. */
  async fallBack(
    kind: AgentKind,
    reason: string,
    request: AgentRequest,
    failed?: AgentResult,
  ): Promise<AgentResult> {
    const cold = this.run(kind, request);
    // No cold mode (an ACP agent): the start's own error is the answer.
    if (!cold) return failed ?? noCold(kind);
    const first = !this.reasons.has(kind);
    if (first) {
      this.reasons.set(kind, reason);
      this.log.warn(
        { agent: kind, reason },
        'agent could not start warm: it runs cold from now on (one process per message) until the relay restarts',
      );
    }
    const r = await cold;
    // The chat whose message met the failure is told once, ahead of its answer.
    return first && r.type === 'ok' ? { ...r, text: `${fallbackNotice(kind, reason)}\n\n${r.text}` } : r;
  }

  list(): { kind: AgentKind; reason: string }[] {
    return [...this.reasons].map(([kind, reason]) => ({ kind, reason }));
  }
}
