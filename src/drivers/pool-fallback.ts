// The CLIs that run cold because their warm start failed (pool-policy `isStartFailure`, or a start
// that did not answer within the start limit): from the first such failure on, every turn of that
// CLI runs as one process per message. The failure is remembered in the store (warm-memory.ts), so
// a restart does not wait the start limit again; it is forgotten when what is started changes
// (config, an upgraded CLI) or by `agentwire agent warm-reset` / `/warm reset`. The owner is told in
// the log, `status`, and the chat whose message hit it; each says what happened, what the relay does
// now, and how to get warm back.
import { getSpec } from '../agents/registry.js';
import type { AgentKind, AgentRequest, AgentResult, SessionRef } from '../agents/types.js';
import { orAfter } from '../core/or-after.js';
import type { Logger } from '../log.js';
import { noCold } from './pool-policy.js';
import type { OpenResult, SessionDriver } from './types.js';
import type { Remembered, WarmMemory } from './warm-memory.js';

/**
 * How long a warm start may take before its process is taken for one that will never speak the
 * protocol (an `agent.command` wrapper that does not pass it through waits silently on its input).
 * The five CLIs start warm in 0.5-5 s on a 2-core machine (docs/performance.md); the drivers' own
 * limit, 60 s, cost every relay start's first message a minute.
 */
export const START_LIMIT_MS = 20_000;

/**
 * The start's answer, or a timeout result once `ms` passed without one. A silent start also hands
 * back `late`, the start still under way (bounded by the driver's own start limit): the caller
 * closes the driver once it settles.
 */
export async function openWithin(
  driver: SessionDriver,
  session: SessionRef,
  ms: number,
): Promise<
  { result: OpenResult; silent: false } | { result: OpenResult; silent: true; late: Promise<OpenResult> }
> {
  const started = performance.now();
  const opening = driver.open(session);
  const r = await orAfter(opening, ms, 'silent' as const);
  if (r !== 'silent') return { result: r, silent: false };
  const result: OpenResult = {
    type: 'error',
    kind: 'timeout',
    message: 'The agent did not start in time.',
    detail: `no answer to its start within ${Math.round(ms / 1000)} s`,
    durationMs: Math.round(performance.now() - started),
  };
  const late = opening.catch(
    (err: unknown): OpenResult => ({
      type: 'error',
      kind: 'exit',
      message: 'The agent did not start.',
      detail: (err as Error)?.message ?? String(err),
      durationMs: Math.round(performance.now() - started),
    }),
  );
  return { result, silent: true, late };
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
    "ones run as one process each, which is slower, also after a restart, until the agent's command " +
    'or the CLI changes. To try live again: `agentwire agent warm-reset`. If `agent.command` wraps ' +
    'the CLI, it must pass its protocol through; `agentwire doctor` checks the agent.)'
  );
}

export class Fallbacks {
  private reasons = new Map<AgentKind, Remembered>();
  /** The store's records, read once (before the first turn that asks). */
  private readonly loaded: Promise<void>;

  constructor(
    /** The one-shot run of a kind; undefined for a kind with no cold mode (acp). */
    private readonly run: (kind: AgentKind, request: AgentRequest) => Promise<AgentResult> | undefined,
    private readonly log: Logger,
    private readonly memory?: WarmMemory,
    private readonly now: () => number = Date.now,
  ) {
    this.loaded = (memory?.load() ?? Promise.resolve<Record<AgentKind, Remembered>>({})).then(
      (all) => {
        for (const [kind, r] of Object.entries(all)) if (!this.reasons.has(kind)) this.reasons.set(kind, r);
      },
      (err: unknown) => this.log.warn({ err }, 'could not read the remembered warm start failures'),
    );
  }

  /** Whether this kind runs cold for what `fingerprint` starts; a changed start is tried warm again. */
  async has(kind: AgentKind, fingerprint: string): Promise<boolean> {
    await this.loaded;
    const r = this.reasons.get(kind);
    if (!r) return false;
    if (r.fingerprint === fingerprint) return true;
    this.log.info(
      { agent: kind },
      'the agent command or CLI changed since its warm start failed: trying warm',
    );
    this.reasons.delete(kind);
    await this.persist();
    return false;
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
    fingerprint = '',
  ): Promise<AgentResult> {
    const cold = this.run(kind, request);
    // No cold mode (an ACP agent): the start's own error is the answer.
    if (!cold) return failed ?? noCold(kind);
    const first = !this.reasons.has(kind);
    if (first) {
      this.reasons.set(kind, { fingerprint, reason, at: this.now() });
      await this.persist();
      this.log.warn(
        { agent: kind, reason },
        'agent could not start warm: it runs cold from now on (one process per message), also after a restart, until its command or CLI changes or `agentwire agent warm-reset`',
      );
    }
    const r = await cold;
    // The chat whose message met the failure is told once, ahead of its answer.
    return first && r.type === 'ok' ? { ...r, text: `${fallbackNotice(kind, reason)}\n\n${r.text}` } : r;
  }

  /** Forgets the failure of `kind` (every kind when undefined): its next turn tries warm. */
  async reset(kind?: AgentKind): Promise<AgentKind[]> {
    await this.loaded;
    const gone = kind === undefined ? [...this.reasons.keys()] : this.reasons.has(kind) ? [kind] : [];
    for (const k of gone) this.reasons.delete(k);
    await this.persist();
    return gone;
  }

  list(): { kind: AgentKind; reason: string }[] {
    return [...this.reasons].map(([kind, r]) => ({ kind, reason: r.reason }));
  }

  private async persist(): Promise<void> {
    if (!this.memory) return;
    try {
      await this.memory.save(Object.fromEntries(this.reasons));
    } catch (err) {
      // Not remembered: the next restart tries warm once more, which costs time, never a message.
      this.log.warn({ err }, 'could not store the warm start failures');
    }
  }
}
