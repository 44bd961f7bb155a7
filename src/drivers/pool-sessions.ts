// The warm pool's live sessions and what keeps them within bounds: room under the process cap and
// the memory budget (closing idle processes nobody waits for), memory samples between turns, the
// idle timer, and closing a session. The decisions are pool-policy.ts's; ./pool.ts runs the turns.
import type { AgentKind } from '../agents/types.js';
import { maskId } from '../log.js';
import { treeRssBytes } from '../runner/rss.js';
import { entryInfo, processSlots } from './pool-entry.js';
import { expectBytes, expired, overLimit, place, type Slot, sampleDue } from './pool-policy.js';
import { Waiters, type WarmDemand } from './pool-room.js';
import type { Entry, PoolOptions, WarmProcessInfo } from './pool-types.js';

type Limits = Pick<
  PoolOptions,
  'maxProcesses' | 'maxMemoryBytes' | 'maxProcessBytes' | 'fairWaitMs' | 'idleMs' | 'rss' | 'log'
> & { now: () => number };

export class PoolSessions {
  private readonly entries = new Map<string, Entry>();
  private readonly waiters = new Waiters();
  /** The last sampled size of a process of each CLI: the estimate for its next start. */
  private readonly measured = new Map<AgentKind, number>();
  /**
   * Each live process's last read, by host (the process's key; a session's own process keeps its
   * key when recycled, so the pid tells a new process from the old): a process several sessions
   * share is read once, not at each of their turns.
   */
  private readonly samples = new Map<string, { pid: number; at: number; rss: number }>();
  private demand: WarmDemand | undefined;

  constructor(private readonly opts: Limits) {}

  get(sessionKey: string): Entry | undefined {
    return this.entries.get(sessionKey);
  }

  add(entry: Entry): void {
    this.entries.set(entry.sessionKey, entry);
  }

  all(): Entry[] {
    return [...this.entries.values()];
  }

  list(now: number): WarmProcessInfo[] {
    return this.all().map((e) => entryInfo(e, now));
  }

  attach(demand: WarmDemand): void {
    this.demand = demand;
  }

  /** Something changed that may let a start waiting for room go on: it asks again. */
  wake(): void {
    this.waiters.wake();
  }

  /** Sessions on the process `host`. */
  sharing(host: string): number {
    let n = 0;
    for (const e of this.entries.values()) if (e.host === host) n++;
    return n;
  }

  /** Waits for room under the cap and the budget, closing idle processes nobody waits for. */
  async room(sessionKey: string, kind: AgentKind, signal: AbortSignal | undefined): Promise<boolean> {
    const since = this.demand?.since(sessionKey) ?? this.opts.now();
    for (;;) {
      if (signal?.aborted) return false;
      const now = this.opts.now();
      const p = place(processSlots(this.sessionSlots()), {
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
        const victims = this.all().filter((e) => e.host === p.key);
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

  /** One slot a session; pool-entry `processSlots` makes them one a process. */
  private sessionSlots(): (Slot & { host: string })[] {
    return this.all().map((e) => ({
      host: e.host,
      key: e.sessionKey,
      busy: e.busy,
      reserved: e.reserved,
      lastTurnAt: e.lastTurnAt,
      wanted: this.demand?.wanted(e.sessionKey) ?? false,
      ...(e.rssBytes !== undefined && { rssBytes: e.rssBytes }),
      expectBytes: expectBytes(e.kind, this.measured.get(e.kind)),
    }));
  }

  /**
   * Its memory, sampled between turns (after the reply went back, off the turn's path): for the
   * budget, the next start's estimate, and its own limit, past which it is closed while idle so
   * its chat's next turn starts a fresh process on the same session.
   */
  sampleLater(entry: Entry): void {
    setImmediate(() => {
      const pid = entry.driver.pid();
      if (pid === undefined || this.entries.get(entry.sessionKey) !== entry) return;
      const rss = this.read(entry.host, pid);
      if (rss === undefined) return;
      entry.rssBytes = rss;
      this.measured.set(entry.kind, rss);
      this.waiters.wake();
      if (!overLimit(rss, this.opts.maxProcessBytes ?? Number.POSITIVE_INFINITY)) return;
      this.opts.log.info(
        { sessionKey: maskId(entry.sessionKey), agent: entry.kind, rssMb: Math.round(rss / 2 ** 20) },
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

  /** The process's memory, read again only when its last read is older than SAMPLE_EVERY_MS. */
  private read(host: string, pid: number): number | undefined {
    const now = this.opts.now();
    const last = this.samples.get(host);
    if (last?.pid === pid && !sampleDue(last.at, now)) return last.rss;
    const rss = (this.opts.rss ?? treeRssBytes)(pid);
    // Reads of processes no session is on any more are dropped, so the map holds live ones only.
    const live = new Set(this.all().map((e) => e.host));
    for (const h of this.samples.keys()) if (!live.has(h)) this.samples.delete(h);
    if (rss === undefined) this.samples.delete(host);
    else this.samples.set(host, { pid, at: now, rss });
    return rss;
  }

  /** Closes the session once it has been idle for `idleMs` (and nobody's work waits on it). */
  arm(entry: Entry, ms = this.opts.idleMs): void {
    clearTimeout(entry.timer);
    entry.timer = setTimeout(() => {
      this.sweep();
      // A timer may fire a hair early: an entry not yet past its time is looked at again. One kept
      // past it because its chat has work waiting is looked at again a whole idle time later.
      const left = entry.lastTurnAt + this.opts.idleMs - this.opts.now();
      if (this.entries.get(entry.sessionKey) === entry && !entry.busy && !entry.reserved)
        this.arm(entry, left > 0 ? left : this.opts.idleMs);
    }, ms);
    entry.timer.unref();
  }

  private sweep(): void {
    for (const key of expired(this.sessionSlots(), this.opts.now(), this.opts.idleMs)) {
      const e = this.entries.get(key);
      if (!e) continue;
      this.opts.log.info({ sessionKey: maskId(key), agent: e.kind }, 'warm process idle: closed');
      void this.remove(e);
    }
  }

  async remove(entry: Entry): Promise<void> {
    clearTimeout(entry.timer);
    entry.reserved = true;
    try {
      await entry.driver.close();
    } finally {
      // The token is refused from the moment the process is gone, and its files go with it.
      entry.tools?.close();
      entry.cleanup?.();
      entry.cleanup = undefined;
      if (this.entries.get(entry.sessionKey) === entry) this.entries.delete(entry.sessionKey);
      this.waiters.wake();
    }
  }
}
