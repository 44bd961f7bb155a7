// The warm pool: one live agent session per lane (the queue's session scope: a chat, or `global`),
// in at most `maxProcesses` processes within a memory budget, a codex or ACP process holding up to
// `sessionsPerProcess` sessions (./hosts.ts). The decisions are pool-policy.ts's; this file holds
// the sessions, their timers, their memory samples and the order of turns in a lane.
// `run` never throws: every failure is an AgentResult, and a warm start that cannot work makes that
// CLI run cold (logged once).
import type { AgentKind, AgentRequest, AgentResult } from '../agents/types.js';
import { maskId } from '../log.js';
import { treeRssBytes } from '../runner/rss.js';
import { announced } from './approval.js';
import { buildDriver } from './factory.js';
import { type HostRegistry, hostRegistry } from './hosts.js';
import { entryInfo, processSlots } from './pool-entry.js';
import { Fallbacks, openWithin, START_LIMIT_MS } from './pool-fallback.js';
import {
  expectBytes,
  expired,
  fingerprint,
  isStartFailure,
  overLimit,
  place,
  reuse,
  type Slot,
} from './pool-policy.js';
import { type Demand, Waiters } from './pool-room.js';
import { type Entry, type PoolOptions, serving, type WarmPool, type WarmProcessInfo } from './pool-types.js';
import { startFingerprint } from './warm-memory.js';
import { bindTurn, takesTools } from './warm-tools.js';

export type { PoolOptions, WarmPool, WarmProcessInfo } from './pool-types.js';

type Opened = { type: 'entry'; entry: Entry } | { type: 'result'; result: AgentResult };

export function createWarmPool(opts: PoolOptions): WarmPool {
  return new Pool(opts);
}

class Pool implements WarmPool {
  private readonly entries = new Map<string, Entry>();
  private readonly chains = new Map<string, Promise<void>>();
  private readonly waiters = new Waiters();
  private readonly fellBack: Fallbacks;
  /** The last sampled size of a process of each CLI: the estimate for its next start. */
  private readonly measured = new Map<AgentKind, number>();
  private demand: Demand | undefined;
  private started = 0;
  private closing = false;
  private readonly now: () => number;
  private readonly hosts: HostRegistry;

  constructor(private readonly opts: PoolOptions) {
    this.now = opts.now ?? Date.now;
    this.hosts = hostRegistry(opts.sessionsPerProcess ?? 1);
    this.fellBack = new Fallbacks(opts.cold, opts.log, opts.memory);
  }

  attach(demand: Demand): void {
    this.demand = demand;
  }

  demandChanged(): void {
    this.waiters.wake();
  }

  live(lane: string): boolean {
    return this.entries.has(lane);
  }

  starts(): number {
    return this.started;
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
    if (this.closing) return this.fellBack.cold(kind, request);
    const started = startFingerprint(request.command, request.env);
    if (await this.fellBack.has(kind, started)) return this.fellBack.cold(kind, request);
    const settings = fingerprint(request, request.warmTools !== undefined);
    let entry = this.entries.get(lane);
    if (entry && !reuse(serving(entry), kind, settings, request.session)) {
      await this.remove(entry);
      entry = undefined;
    }
    if (!entry) {
      const opened = await this.open(lane, kind, request, settings, started);
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
    started: string,
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
      return {
        type: 'result',
        result: await this.fellBack.fallBack(kind, built.reason, request, undefined, started),
      };
    }
    const host = built.host ?? `lane:${lane}`;
    // Joining a live process starts nothing: no room to wait for, no gate, no start counted.
    const joins = this.sharing(host) > 0;
    if (!joins && !(await this.room(lane, kind, request.signal))) {
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
      this.sampleLater(entry);
      // `warm process started` is a process start (bench/ counts these lines); a session that
      // joined a live process says so instead.
      this.opts.log.info(
        { lane: maskId(lane), agent: kind, pid: built.driver.pid(), shared: this.sharing(host) },
        joins ? 'warm session opened on a live process' : 'warm process started',
      );
      return { type: 'entry', entry };
    }
    const st = built.driver.state();
    const fault = st.type === 'broken' ? st.fault : undefined;
    await this.remove(entry);
    if (!this.closing && (opened.silent || isStartFailure(r, fault))) {
      const why = `${r.kind}${r.detail ? `: ${r.detail}` : ''}`;
      return { type: 'result', result: await this.fellBack.fallBack(kind, why, request, r, started) };
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
      this.sampleLater(entry);
      this.waiters.wake();
    }
    const sessionId = r.sessionId ?? entry.sessionId;
    return sessionId !== undefined ? { ...r, sessionId } : r;
  }

  /** Waits for room under the cap and the budget, closing idle processes nobody waits for. */
  private async room(lane: string, kind: AgentKind, signal: AbortSignal | undefined): Promise<boolean> {
    const since = this.demand?.since(lane) ?? this.now();
    for (;;) {
      if (signal?.aborted) return false;
      const now = this.now();
      const p = place(this.slots(), {
        maxProcesses: this.opts.maxProcesses,
        maxMemoryBytes: this.opts.maxMemoryBytes ?? Number.POSITIVE_INFINITY,
        expectBytes: expectBytes(kind, this.measured.get(kind)),
        since,
        now,
        fairWaitMs: this.opts.fairWaitMs ?? 30_000,
      });
      if (p.type === 'open') return true;
      if (p.type === 'evict') {
        // A slot is a process: closing it closes every session on it.
        const victims = [...this.entries.values()].filter((e) => e.host === p.lane);
        this.opts.log.info(
          { sessions: victims.length, agent: victims[0]?.kind, waited: now - since },
          'warm pool full: closing an idle process',
        );
        await Promise.all(victims.map((v) => this.remove(v)));
        continue;
      }
      await this.waiters.wait(signal, p.until, now);
    }
  }

  /** One slot a process (sessions sharing one count once): what the cap and the budget count. */
  private slots(): Slot[] {
    return processSlots(this.sessionSlots());
  }

  private sessionSlots(): (Slot & { host: string })[] {
    return [...this.entries.values()].map((e) => ({
      host: e.host,
      lane: e.lane,
      busy: e.busy,
      reserved: e.reserved,
      lastTurnAt: e.lastTurnAt,
      wanted: this.demand?.wanted(e.lane) ?? false,
      ...(e.rssBytes !== undefined && { rssBytes: e.rssBytes }),
      expectBytes: expectBytes(e.kind, this.measured.get(e.kind)),
    }));
  }

  /**
   * Its memory, sampled between turns (after the reply went back, off the turn's path): for the
   * budget, the next start's estimate, and its own limit, past which it is closed while idle so
   * its chat's next turn starts a fresh process on the same session.
   */
  private sampleLater(entry: Entry): void {
    setImmediate(() => {
      const pid = entry.driver.pid();
      if (pid === undefined || this.entries.get(entry.lane) !== entry) return;
      const rss = (this.opts.rss ?? treeRssBytes)(pid);
      if (rss === undefined) return;
      entry.rssBytes = rss;
      this.measured.set(entry.kind, rss);
      this.waiters.wake();
      if (!overLimit(rss, this.opts.maxProcessBytes ?? Number.POSITIVE_INFINITY)) return;
      this.opts.log.info(
        { lane: maskId(entry.lane), agent: entry.kind, rssMb: Math.round(rss / 2 ** 20) },
        'warm process over its memory limit: recycled',
      );
      // Every session on the process goes (each after its turn): the process ends with the last.
      for (const e of this.entries.values()) {
        if (e.host !== entry.host) continue;
        if (e.busy || e.reserved) e.closeAfterTurn = true;
        else void this.remove(e);
      }
    }).unref();
  }

  private sharing(host: string): number {
    let n = 0;
    for (const e of this.entries.values()) if (e.host === host) n++;
    return n;
  }

  private arm(entry: Entry, ms = this.opts.idleMs): void {
    clearTimeout(entry.timer);
    entry.timer = setTimeout(() => {
      this.sweep();
      // A timer may fire a hair early: an entry not yet past its time is looked at again. One kept
      // past it because its chat has work waiting is looked at again a whole idle time later.
      const left = entry.lastTurnAt + this.opts.idleMs - this.now();
      if (this.entries.get(entry.lane) === entry && !entry.busy && !entry.reserved)
        this.arm(entry, left > 0 ? left : this.opts.idleMs);
    }, ms);
    entry.timer.unref();
  }

  private sweep(): void {
    for (const lane of expired(this.sessionSlots(), this.now(), this.opts.idleMs)) {
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
      this.waiters.wake();
    }
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

  warmReset(kind?: AgentKind): Promise<AgentKind[]> {
    return this.fellBack.reset(kind);
  }

  fallbacks(): { kind: AgentKind; reason: string }[] {
    return this.fellBack.list();
  }

  async shutdown(graceMs: number): Promise<void> {
    this.closing = true;
    this.waiters.wake();
    const all = Promise.all([...this.entries.values()].map((e) => this.remove(e)));
    await Promise.race([all, new Promise<void>((r) => setTimeout(r, graceMs).unref())]);
  }
}
