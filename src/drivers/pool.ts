// The warm pool: one live agent session per session key (the queue's session scope: a chat, or
// `global`), in at most `maxProcesses` processes within a memory budget, a codex or ACP process
// holding up to `sessionsPerProcess` sessions (./hosts.ts). The decisions are pool-policy.ts's;
// ./pool-sessions.ts holds the sessions and keeps them within bounds; this file runs the turns:
// one at a time per session, opening, reusing or replacing its process as the turn asks.
// `run` never throws: every failure is an AgentResult, and a warm start that cannot work makes that
// CLI run cold (logged once).
import type { AgentKind, AgentRequest, AgentResult } from '../agents/types.js';
import { KeyedChains } from '../core/keyed-chains.js';
import { orAfter } from '../core/or-after.js';
import { maskId } from '../log.js';
import { announced } from './approval.js';
import { buildDriver } from './factory.js';
import { type HostRegistry, hostRegistry } from './hosts.js';
import { Fallbacks, openWithin, START_LIMIT_MS } from './pool-fallback.js';
import { fingerprint, isStartFailure, reuse } from './pool-policy.js';
import type { WarmDemand } from './pool-room.js';
import { PoolSessions } from './pool-sessions.js';
import {
  type Entry,
  type PoolOptions,
  serving,
  type WarmPool,
  type WarmProcessInfo,
  type WarmStatus,
} from './pool-types.js';
import type { OpenResult } from './types.js';
import { START_TIMEOUT_MS } from './warm-child.js';
import { startFingerprint } from './warm-memory.js';
import { bindTurn, takesTools } from './warm-tools.js';

export type { PoolOptions, WarmPool, WarmProcessInfo, WarmStatus } from './pool-types.js';

type Opened = { type: 'entry'; entry: Entry } | { type: 'result'; result: AgentResult };

export function createWarmPool(opts: PoolOptions): WarmPool {
  return new Pool(opts);
}

class Pool implements WarmPool {
  private readonly sessions: PoolSessions;
  /** A session takes one turn at a time: with `sessions.scope: 'global'` several chats share it. */
  private readonly chains = new KeyedChains();
  private readonly fellBack: Fallbacks;
  private started = 0;
  private closing = false;
  private readonly now: () => number;
  private readonly hosts: HostRegistry;

  constructor(private readonly opts: PoolOptions) {
    this.now = opts.now ?? Date.now;
    this.sessions = new PoolSessions({ ...opts, now: this.now });
    this.hosts = hostRegistry(opts.sessionsPerProcess ?? 1);
    this.fellBack = new Fallbacks(opts.cold, opts.log, opts.memory);
  }

  attach(demand: WarmDemand): void {
    this.sessions.attach(demand);
  }

  demandChanged(): void {
    this.sessions.wake();
  }

  live(sessionKey: string): boolean {
    return this.sessions.get(sessionKey) !== undefined;
  }

  starts(): number {
    return this.started;
  }

  run(sessionKey: string, kind: AgentKind, request: AgentRequest): Promise<AgentResult> {
    return this.chains.run(sessionKey, () => this.runSafely(sessionKey, kind, request));
  }

  private async runSafely(sessionKey: string, kind: AgentKind, request: AgentRequest): Promise<AgentResult> {
    try {
      return await this.runNow(sessionKey, kind, request, true);
    } catch (err) {
      this.opts.log.error(
        { err, sessionKey: maskId(sessionKey), agent: kind },
        'warm run failed unexpectedly',
      );
      return { type: 'error', kind: 'exit', message: 'The agent could not be run.', durationMs: 0 };
    }
  }

  private async runNow(
    sessionKey: string,
    kind: AgentKind,
    request: AgentRequest,
    retry: boolean,
  ): Promise<AgentResult> {
    if (this.closing) return this.fellBack.cold(kind, request);
    const started = startFingerprint(request.command, request.env);
    if (await this.fellBack.has(kind, started)) return this.fellBack.cold(kind, request);
    const settings = fingerprint(request, request.warmTools !== undefined);
    let entry = this.sessions.get(sessionKey);
    if (entry && !reuse(serving(entry), kind, settings, request.session)) {
      await this.sessions.remove(entry);
      entry = undefined;
    }
    if (!entry) {
      const opened = await this.open(sessionKey, kind, request, settings, started);
      if (opened.type === 'result') return opened.result;
      entry = opened.entry;
    }
    return this.turn(entry, request, retry);
  }

  private async open(
    sessionKey: string,
    kind: AgentKind,
    request: AgentRequest,
    settings: string,
    started: string,
  ): Promise<Opened> {
    // The process's own token, not the run's: the process outlives this run.
    const tools = takesTools(kind) ? request.warmTools?.open(sessionKey) : undefined;
    const built = (this.opts.build ?? buildDriver)(
      kind,
      {
        ...request,
        tools: tools?.server,
        ...(this.opts.launcher && { launcher: this.opts.launcher }),
        ...(this.opts.cancelGraceMs !== undefined && { cancelGraceMs: this.opts.cancelGraceMs }),
      },
      this.opts.guard?.(),
      this.hosts,
      this.opts.log,
    );
    if (built.type === 'cold_only') {
      tools?.close();
      return {
        type: 'result',
        result: await this.fellBack.fallBack(kind, built.reason, request, undefined, started),
      };
    }
    const host = built.host ?? `session:${sessionKey}`;
    // Joining a live process starts nothing: no room to wait for, no gate, no start counted.
    const joins = this.sessions.sharing(host) > 0;
    if (!joins && !(await this.sessions.room(sessionKey, kind, request.signal))) {
      void built.driver.close(); // gives its seat on a shared process back
      tools?.close();
      return {
        type: 'result',
        result: { type: 'error', kind: 'aborted', message: 'Stopped.', durationMs: 0 },
      };
    }
    const now = this.now();
    const entry: Entry = {
      sessionKey,
      kind,
      settings,
      driver: built.driver,
      host,
      sessionId: undefined,
      startedAt: now,
      lastTurnAt: now,
      busy: false,
      reserved: true,
      closeAfterTurn: false,
      steered: [],
      ...(tools && { tools }),
    };
    this.sessions.add(entry);
    if (built.prepare) entry.cleanup = built.prepare();
    if (!joins) {
      // The fork and the CLI's start-up CPU wait for the webhooks in hand, like a cold run's spawn.
      await this.opts.startGate?.();
      this.started++;
    }
    const opened = await openWithin(built.driver, request.session, this.opts.startLimitMs ?? START_LIMIT_MS);
    const r = opened.result;
    if (r.type === 'ok') {
      entry.sessionId = r.sessionId;
      entry.reserved = false;
      this.sessions.sampleLater(entry);
      // `warm process started` is a process start (bench/ counts these lines); a session that
      // joined a live process says so instead.
      this.opts.log.info(
        {
          sessionKey: maskId(sessionKey),
          agent: kind,
          pid: built.driver.pid(),
          shared: this.sessions.sharing(host),
        },
        joins ? 'warm session opened on a live process' : 'warm process started',
      );
      return { type: 'entry', entry };
    }
    const why = `${r.kind}${r.detail ? `: ${r.detail}` : ''}`;
    if (opened.silent && !this.closing) {
      // Remembered first (fallBack records the failure before it awaits anything), so that a start
      // answering just after the limit is forgiven, not recorded after its forgiveness.
      const answer = this.fellBack.fallBack(kind, why, request, r, started);
      void this.settleLate(entry, kind, opened.late);
      return { type: 'result', result: await answer };
    }
    const st = built.driver.state();
    const fault = st.type === 'broken' ? st.fault : undefined;
    await this.sessions.remove(entry);
    if (!this.closing && isStartFailure(r, fault)) {
      return { type: 'result', result: await this.fellBack.fallBack(kind, why, request, r, started) };
    }
    return { type: 'result', result: r };
  }

  /**
   * A start that went past the limit is still waited for (up to `lateStartMs`), then closed: this
   * chat's message already ran cold. One that answers was slow, not a wrapper that never speaks
   * the protocol (a busy machine, a CLI's first start), so its CLI is tried warm again from the
   * next message instead of running cold until `warm-reset`.
   */
  private async settleLate(entry: Entry, kind: AgentKind, late: Promise<OpenResult>): Promise<void> {
    const r = await orAfter(late, this.opts.lateStartMs ?? START_TIMEOUT_MS, undefined);
    await this.sessions.remove(entry).catch(() => undefined);
    if (r?.type !== 'ok' || this.closing) return;
    if ((await this.fellBack.reset(kind)).length === 0) return;
    this.opts.log.warn(
      { agent: kind },
      'the agent answered its warm start after the limit: it runs warm again from its next message (a busy machine may want a higher agents.warm.startSeconds)',
    );
  }

  private async turn(entry: Entry, request: AgentRequest, retry: boolean): Promise<AgentResult> {
    entry.busy = true;
    entry.steered = [];
    clearTimeout(entry.timer);
    const bound = bindTurn(entry.tools, request.warmTools, (reason) =>
      this.opts.log.warn(
        { sessionKey: maskId(entry.sessionKey), agent: entry.kind, reason },
        "warm turn runs without agentwire's tools",
      ),
    );
    let r: AgentResult;
    try {
      r = await entry.driver.turn({
        prompt: request.prompt,
        timeoutMs: request.timeoutMs,
        ...(request.signal ? { signal: request.signal } : {}),
        ...(request.onProgress ? { onProgress: request.onProgress } : {}),
        ...(request.onEvent ? { onEvent: request.onEvent } : {}),
        ...(request.approve ? { approve: announced(request.approve, request.onEvent) } : {}),
        ...(request.personWaitMs ? { personWaitMs: request.personWaitMs } : {}),
      });
    } finally {
      // Between turns the process's token is refused again.
      bound?.();
    }
    entry.busy = false;
    entry.lastTurnAt = this.now();
    const st = entry.driver.state();
    if (st.type === 'broken' || st.type === 'closed') {
      this.opts.log.warn(
        {
          sessionKey: maskId(entry.sessionKey),
          agent: entry.kind,
          fault: st.type === 'broken' ? st.fault.type : 'closed',
        },
        'warm process replaced',
      );
      await this.sessions.remove(entry);
      // The CLI died under a turn nobody stopped (killed from outside, out of memory), or answered
      // it with a stale end: once, a new process resumes the session and the message runs again, so
      // it is answered once.
      const died = st.type === 'broken' && (st.fault.type === 'exited' || st.fault.type === 'stale');
      if (retry && died && !request.signal?.aborted && !this.closing && entry.sessionId) {
        // What was steered into the lost turn goes with it, so the new process hears all of it.
        const prompt = [request.prompt, ...entry.steered].join('\n\n');
        const session = { type: 'resume' as const, id: entry.sessionId };
        return this.runNow(entry.sessionKey, entry.kind, { ...request, prompt, session }, false);
      }
    } else if (entry.closeAfterTurn || this.closing) {
      await this.sessions.remove(entry);
    } else {
      this.sessions.arm(entry);
      this.sessions.sampleLater(entry);
      this.sessions.wake();
    }
    const sessionId = r.sessionId ?? entry.sessionId;
    return sessionId !== undefined ? { ...r, sessionId } : r;
  }

  async steer(sessionKey: string, text: string): Promise<'steered' | 'unsupported' | 'idle'> {
    const e = this.sessions.get(sessionKey);
    if (!e?.busy) return 'idle';
    const r = e.driver.steer(text).type;
    if (r === 'steered') e.steered.push(text);
    return r;
  }

  async close(sessionKey: string): Promise<void> {
    const e = this.sessions.get(sessionKey);
    if (!e) return;
    // Busy or still starting: it ends after the turn it serves (whose session is not kept).
    if (e.busy || e.reserved) e.closeAfterTurn = true;
    else await this.sessions.remove(e);
  }

  list(now: number): WarmProcessInfo[] {
    return this.sessions.list(now);
  }

  status(now: number): WarmStatus {
    const { maxProcesses, maxMemoryBytes, maxProcessBytes } = this.opts;
    return {
      maxProcesses,
      ...(maxMemoryBytes !== undefined && { maxMemoryBytes }),
      ...(maxProcessBytes !== undefined && { maxProcessBytes }),
      starts: this.started,
      processes: this.list(now),
      fallbacks: this.fellBack.list(),
    };
  }

  warmReset(kind?: AgentKind): Promise<AgentKind[]> {
    return this.fellBack.reset(kind);
  }

  fallbacks(): { kind: AgentKind; reason: string }[] {
    return this.fellBack.list();
  }

  async shutdown(graceMs: number): Promise<void> {
    this.closing = true;
    this.sessions.wake();
    const all = Promise.all(this.sessions.all().map((e) => this.sessions.remove(e)));
    await Promise.race([all, new Promise<void>((r) => setTimeout(r, graceMs).unref())]);
  }
}
