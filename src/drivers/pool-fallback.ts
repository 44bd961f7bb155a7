// The CLIs that run cold because their warm start failed (pool-policy `isStartFailure`): from the
// first such failure on, every turn of that CLI runs as one process per message, logged once and
// listed by status.
import type { AgentKind, AgentRequest, AgentResult } from '../agents/types.js';
import type { Logger } from '../log.js';
import { noCold } from './pool-policy.js';

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
    if (!this.reasons.has(kind)) {
      this.reasons.set(kind, reason);
      this.log.warn({ agent: kind, reason }, 'warm start failed: this agent runs cold from now on');
    }
    return cold;
  }

  list(): { kind: AgentKind; reason: string }[] {
    return [...this.reasons].map(([kind, reason]) => ({ kind, reason }));
  }
}
