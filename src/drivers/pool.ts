// The warm pool: one live agent session per lane (a chat, or `global`) in at most `maxProcesses`
// processes, a codex or ACP one holding up to `sessionsPerProcess` sessions (./hosts.ts). The
// decisions are pool-policy.ts's; this file holds the sessions, their timers and the order of turns
// in a lane. `run` never throws: every failure is an AgentResult, and a warm start that cannot work
// makes that CLI run cold (logged once).
import type { AgentKind, AgentRequest, AgentResult } from '../agents/types.js';
import type { Logger } from '../log.js';
import { maskId } from '../log.js';
import type { GroupGuard } from '../runner/spawn-stdio.js';
import { type Built, buildDriver, type DriverSettings } from './factory.js';
import { type HostRegistry, hostRegistry } from './hosts.js';
import { type Entry, entryInfo, processSlots, serving, type WarmProcessInfo } from './pool-entry.js';
import { expired, fingerprint, isStartFailure, noCold, place, reuse, type Slot } from './pool-policy.js';
import { bindTurn, takesTools } from './warm-tools.js';

export type { WarmProcessInfo };

export interface WarmPool {
  /** One turn in the lane's live process; opens/resumes/replaces as needed. Never throws. */
  run(lane: string, kind: AgentKind, request: AgentRequest): Promise<AgentResult>;
  steer(lane: string, text: string): Promise<'steered' | 'unsupported' | 'idle'>;
  /** /new: closes the lane's process (after its running turn, if one runs). */
  close(lane: string): Promise<void>;
  list(now: number): WarmProcessInfo[];
  fallbacks(): { kind: AgentKind; reason: string }[];
  shutdown(graceMs: number): Promise<void>;
}

export interface PoolOptions {
  maxProcesses: number;
  /** Sessions one codex or ACP process may hold (other CLIs: one); 1 when unset. */
  sessionsPerProcess?: number;
  idleMs: number;
  log: Logger;
  /** The one-shot run of a kind, for fallback; undefined for a kind with no cold mode (acp). */
  cold: (kind: AgentKind, request: AgentRequest) => Promise<AgentResult> | undefined;
  /** Registers each process group with the relay's watchdog (started on first use). */
  guard?: () => GroupGuard | undefined;
  build?: (
    kind: AgentKind,
    settings: DriverSettings,
    guard?: GroupGuard,
    hosts?: HostRegistry,
    log?: Logger,
  ) => Built;
  now?: () => number;
}

type Opened = { type: 'entry'; entry: Entry } | { type: 'result'; result: AgentResult };

export function createWarmPool(opts: PoolOptions): WarmPool {
  return new Pool(opts);
}

class Pool implements WarmPool {
  private readonly entries = new Map<string, Entry>();
  private readonly chains = new Map<string, Promise<void>>();
  private waiters: (() => void)[] = [];
  private readonly fellBack = new Map<AgentKind, string>();
  private closing = false;
  private readonly now: () => number;
  private readonly hosts: HostRegistry;

  constructor(private readonly opts: PoolOptions) {
    this.now = opts.now ?? Date.now;
    this.hosts = hostRegistry(opts.sessionsPerProcess ?? 1);
  }

  run(lane: string, kind: AgentKind, request: AgentRequest): Promise<AgentResult> {
    // A lane takes one turn at a time: with `sessions.scope: 'global'` several chats share it.
    const prev = this.chains.get(lane) ?? Promise.resolve();
    const next = prev.then(() => this.runSafely(lane, kind, request));
    const tail = next.then(
      () => {},
      () => {},
    );
    this.chains.set(lane, tail);
    void tail.then(() => {
      if (this.chains.get(lane) === tail) this.chains.delete(lane);
    });
    return next;
  }

  private async runSafely(lane: string, kind: AgentKind, request: AgentRequest): Promise<AgentResult> {
    try {
      return await this.runNow(lane, kind, request, true);
    } catch (err) {
      this.opts.log.error({ err, lane: maskId(lane), agent: kind }, 'warm run failed unexpectedly');
      return { type: 'error', kind: 'exit', message: 'The agent could not be run.', durationMs: 0 };
    }
  }

  private async runNow(
    lane: string,
    kind: AgentKind,
    request: AgentRequest,
    retry: boolean,
  ): Promise<AgentResult> {
    if (this.closing || this.fellBack.has(kind)) return this.cold(kind, request);
    const settings = fingerprint(request, request.warmTools !== undefined);
    let entry = this.entries.get(lane);
    if (entry && !reuse(serving(entry), kind, settings, request.session)) {
      await this.remove(entry);
      entry = undefined;
    }
    if (!entry) {
      const opened = await this.open(lane, kind, request, settings);
      if (opened.type === 'result') return opened.result;
      entry = opened.entry;
    }
    return this.turn(entry, request, retry);
  }

  private async open(
    lane: string,
    kind: AgentKind,
    request: AgentRequest,
    settings: string,
  ): Promise<Opened> {
    // The process's own token, not the run's: the process outlives this run.
    const tools = takesTools(kind) ? request.warmTools?.open(lane) : undefined;
    const built = (this.opts.build ?? buildDriver)(
      kind,
      { ...request, tools: tools?.server },
      this.opts.guard?.(),
      this.hosts,
      this.opts.log,
    );
    if (built.type === 'cold_only') {
      tools?.close();
      return { type: 'result', result: await this.fallBack(kind, built.reason, request) };
    }
    const host = built.host ?? `lane:${lane}`;
    if (!(await this.room(request.signal, host))) {
      void built.driver.close(); // gives its seat on a shared process back
      tools?.close();
      return {
        type: 'result',
        result: { type: 'error', kind: 'aborted', message: 'Stopped.', durationMs: 0 },
      };
    }
    const now = this.now();
    const entry: Entry = {
      lane,
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
    this.entries.set(lane, entry);
    if (built.prepare) entry.cleanup = built.prepare();
    const r = await built.driver.open(request.session);
    if (r.type === 'ok') {
      entry.sessionId = r.sessionId;
      entry.reserved = false;
      this.opts.log.info(
        { lane: maskId(lane), agent: kind, pid: built.driver.pid(), shared: this.sharing(host) },
        'warm session opened',
      );
      return { type: 'entry', entry };
    }
    const st = built.driver.state();
    const fault = st.type === 'broken' ? st.fault : undefined;
    await this.remove(entry);
    if (!this.closing && isStartFailure(r, fault)) {
      const why = `${r.kind}${r.detail ? `: ${r.detail}` : ''}`;
      return { type: 'result', result: await this.fallBack(kind, why, request, r) };
    }
    return { type: 'result', result: r };
  }

  private async turn(entry: Entry, request: AgentRequest, retry: boolean): Promise<AgentResult> {
    entry.busy = true;
    entry.steered = [];
    clearTimeout(entry.timer);
    const bound = bindTurn(entry.tools, request.warmTools, (reason) =>
      this.opts.log.warn(
        { lane: maskId(entry.lane), agent: entry.kind, reason },
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
        ...(request.approve ? { approve: request.approve } : {}),
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
          lane: maskId(entry.lane),
          agent: entry.kind,
          fault: st.type === 'broken' ? st.fault.type : 'closed',
        },
        'warm process replaced',
      );
      await this.remove(entry);
      // The CLI died under a turn nobody stopped (killed from outside, out of memory), or answered
      // it with a stale end: once, a new process resumes the session and the message runs again, so
      // it is answered once.
      const died = st.type === 'broken' && (st.fault.type === 'exited' || st.fault.type === 'stale');
      if (retry && died && !request.signal?.aborted && !this.closing && entry.sessionId) {
        // What was steered into the lost turn goes with it, so the new process hears all of it.
        const prompt = [request.prompt, ...entry.steered].join('\n\n');
        const session = { type: 'resume' as const, id: entry.sessionId };
        return this.runNow(entry.lane, entry.kind, { ...request, prompt, session }, false);
      }
    } else if (entry.closeAfterTurn || this.closing) {
      await this.remove(entry);
    } else {
      this.arm(entry);
      this.wake();
    }
    const sessionId = r.sessionId ?? entry.sessionId;
    return sessionId !== undefined ? { ...r, sessionId } : r;
  }

  /** Room under the cap (none needed to join a live process): full, the LRU idle process closes. */
  private async room(signal: AbortSignal | undefined, host: string): Promise<boolean> {
    for (;;) {
      if (signal?.aborted) return false;
      if (this.sharing(host) > 0) return true;
      const p = place(processSlots([...this.entries.values()]), this.opts.maxProcesses);
      if (p.type === 'open') return true;
      if (p.type === 'evict') {
        const victims = [...this.entries.values()].filter((e) => e.host === p.lane);
        this.opts.log.info({ sessions: victims.length }, 'warm pool full: closing the LRU idle process');
        await Promise.all(victims.map((v) => this.remove(v)));
        continue;
      }
      await new Promise<void>((resolve) => {
        const done = () => {
          signal?.removeEventListener('abort', done);
          resolve();
        };
        this.waiters.push(done);
        signal?.addEventListener('abort', done, { once: true });
      });
    }
  }

  private slots(): Slot[] {
    return [...this.entries.values()].map((e) => ({
      lane: e.lane,
      busy: e.busy,
      reserved: e.reserved,
      lastTurnAt: e.lastTurnAt,
    }));
  }

  private sharing(host: string): number {
    return [...this.entries.values()].filter((e) => e.host === host).length;
  }

  private arm(entry: Entry, ms = this.opts.idleMs): void {
    clearTimeout(entry.timer);
    entry.timer = setTimeout(() => {
      this.sweep();
      // A timer may fire a hair early: an entry not yet past its time is looked at again.
      if (this.entries.get(entry.lane) === entry && !entry.busy && !entry.reserved)
        this.arm(entry, Math.max(1, entry.lastTurnAt + this.opts.idleMs - this.now()));
    }, ms);
    entry.timer.unref();
  }

  private sweep(): void {
    for (const lane of expired(this.slots(), this.now(), this.opts.idleMs)) {
      const e = this.entries.get(lane);
      if (!e) continue;
      this.opts.log.info({ lane: maskId(lane), agent: e.kind }, 'warm process idle: closed');
      void this.remove(e);
    }
  }

  private async remove(entry: Entry): Promise<void> {
    clearTimeout(entry.timer);
    entry.reserved = true;
    try {
      await entry.driver.close();
    } finally {
      // The token is refused from the moment the process is gone, and its files go with it.
      entry.tools?.close();
      entry.cleanup?.();
      entry.cleanup = undefined;
      if (this.entries.get(entry.lane) === entry) this.entries.delete(entry.lane);
      this.wake();
    }
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  private cold(kind: AgentKind, request: AgentRequest): Promise<AgentResult> {
    return this.opts.cold(kind, request) ?? Promise.resolve(noCold(kind));
  }

  /** From now on this kind runs cold (logged once); this request too, so it is still answered. */
  private async fallBack(
    kind: AgentKind,
    reason: string,
    request: AgentRequest,
    failed?: AgentResult,
  ): Promise<AgentResult> {
    const cold = this.opts.cold(kind, request);
    // No cold mode (an ACP agent): the start's own error is the answer.
    if (!cold) return failed ?? noCold(kind);
    if (!this.fellBack.has(kind)) {
      this.fellBack.set(kind, reason);
      this.opts.log.warn({ agent: kind, reason }, 'warm start failed: this agent runs cold from now on');
    }
    return cold;
  }

  async steer(lane: string, text: string): Promise<'steered' | 'unsupported' | 'idle'> {
    const e = this.entries.get(lane);
    if (!e?.busy) return 'idle';
    const r = e.driver.steer(text).type;
    if (r === 'steered') e.steered.push(text);
    return r;
  }

  async close(lane: string): Promise<void> {
    const e = this.entries.get(lane);
    if (!e) return;
    // Busy or still starting: it ends after the turn it serves (whose session is not kept).
    if (e.busy || e.reserved) e.closeAfterTurn = true;
    else await this.remove(e);
  }

  list(now: number): WarmProcessInfo[] {
    return [...this.entries.values()].map((e) => entryInfo(e, now));
  }

  fallbacks(): { kind: AgentKind; reason: string }[] {
    return [...this.fellBack].map(([kind, reason]) => ({ kind, reason }));
  }

  async shutdown(graceMs: number): Promise<void> {
    this.closing = true;
    this.wake();
    const all = Promise.all([...this.entries.values()].map((e) => this.remove(e)));
    await Promise.race([all, new Promise<void>((r) => setTimeout(r, graceMs).unref())]);
  }
}
