// One process's side of the ownership port (store/ownership.ts): it registers the process, holds the
// leases of the chats it runs (renewed on a timer, released when the chat goes idle, so another
// process beside it can take the chat next), keeps the leader leases it was asked for, and delivers
// notifications: its own at once, other processes' when the store rings (an engine that pushes them,
// PostgreSQL's LISTEN/NOTIFY) or on each poll. With pushes, the poll is a slow safety net (every
// renewal round) for a push lost while the store's connection for them was down.
//
// Lease timings (defaults from queue.leaseSeconds, 30 s): a lease is renewed every third of its
// length, so two renewals may fail (a busy disk, a long GC) before it runs out; it is long enough
// that a healthy process never loses it, and short enough that a crashed one's chats are taken over
// within half a minute. A process that is gone on this host (its pid no longer exists) is reaped at
// once, so a restart after a crash does not wait for the lease; a zombie or a reused pid looks alive
// and falls back to the lease's expiry.
import { hostname } from 'node:os';
import type { ChatKey } from '../core/types.js';
import type { Logger } from '../log.js';
import type {
  Fence,
  NewProcess,
  Notification,
  OrphanChat,
  OwnershipStore,
  ProcessInfo,
  Topic,
} from '../store/ownership.js';
import type { LeaseSeen } from '../store/queue-ops.js';
import { HeldElsewhere, leftTo } from './held-elsewhere.js';
import { Leads } from './leads.js';
import { AffinityWait } from './lease-affinity.js';
import { type Handler, OwnerNotices } from './owner-notices.js';
import { PerChatChain } from './per-chat-chain.js';
import type { Clock } from './ports.js';
import { processGone } from './process-gone.js';
import { forMe, parseReadyKey } from './ready-key.js';

export interface OwnershipTimings {
  /** How long a lease lasts without renewal. */
  leaseMs: number;
  /** How often leases are renewed and orphans looked for. */
  renewMs: number;
  /** How often other processes' notifications are read (without pushes; with them, every `renewMs`). */
  pollMs: number;
  /** Set: a chat waits up to this long for its last runner while it lives (queue/lease-affinity.ts). */
  affinityMs?: number;
}

export function ownershipTimings(leaseSeconds: number): OwnershipTimings {
  const leaseMs = leaseSeconds * 1000;
  return { leaseMs, renewMs: Math.max(50, Math.floor(leaseMs / 3)), pollMs: Math.min(500, leaseMs / 4) };
}

interface Held {
  fence: Fence;
  uses: number;
  /** When the store last granted or renewed it (the time given to the store): it lasts from there. */
  confirmedAt: number;
  /** A run's use passed on to the chat's next run (`keep`): that run's take uses it, not one more. */
  kept?: boolean;
}

export class ProcessOwner {
  private readonly held = new Map<ChatKey, Held>();
  /** One chat's takes and drops in call order (queue/per-chat-chain.ts says why). */
  private readonly chains = new PerChatChain();
  /** Fences this process lost: a late write carries them and is refused, never written unfenced. */
  private readonly lost = new Map<ChatKey, Fence>();
  private readonly elsewhere = new HeldElsewhere();
  private readonly affinity: AffinityWait | undefined;
  private readonly notices: OwnerNotices;
  /** The leader leases this process asks for (queue/leads.ts). */
  private readonly leadSet: Leads;
  private lostHandler: (chat: ChatKey) => void = () => undefined;
  private orphanHandler: (chats: OrphanChat[]) => void = () => undefined;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private lastRenew = 0;
  /** Set while the store pushes notifications: the poll then runs only with each renewal round. */
  private unwatch: (() => void) | undefined;
  private stopped = false;
  private failing = false;

  private constructor(
    private readonly port: OwnershipStore,
    readonly info: ProcessInfo,
    readonly timings: OwnershipTimings,
    private readonly log: Logger,
    private readonly now: Clock,
  ) {
    const bound = timings.affinityMs;
    this.affinity =
      bound === undefined ? undefined : new AffinityWait(port, info.id, bound, 2 * timings.renewMs);
    this.leadSet = new Leads(port, () => this.info.id, now, timings.leaseMs, log);
    this.notices = new OwnerNotices(
      port,
      info.id,
      log,
      (n) => this.heard(n),
      () => this.stopped,
    );
  }

  get id(): string {
    return this.info.id;
  }

  /** Registers the process, reaps the dead ones, and starts its timer. */
  static async start(
    port: OwnershipStore,
    p: Omit<NewProcess, 'host' | 'pid' | 'startedAt'>,
    timings: OwnershipTimings,
    log: Logger,
    now: Clock = Date.now,
  ): Promise<ProcessOwner> {
    const info = await port.register({ ...p, host: hostname(), pid: process.pid, startedAt: now() }, now());
    const owner = new ProcessOwner(port, info, timings, log, now);
    await owner.notices.start();
    owner.unwatch = await port.watch?.(() => owner.notices.ring());
    await owner.reap();
    owner.timer = setInterval(() => void owner.tick(), timings.pollMs);
    owner.timer.unref();
    return owner;
  }

  /**
   * The chat's lease for one more use (a run, a delivery): the fence to carry, or undefined when
   * another live process holds it (a `chat_ready` or an orphan scan says when to try again).
   */
  take(
    chat: ChatKey,
    opts: { forRun?: boolean } = {},
  ): Promise<{ fence: Fence; fresh: boolean } | undefined> {
    return this.chains.run(chat, () => this.takeNow(chat, opts.forRun === true));
  }

  private async takeNow(
    chat: ChatKey,
    forRun: boolean,
  ): Promise<{ fence: Fence; fresh: boolean } | undefined> {
    const decided = forRun && this.elsewhere.takeMine(chat);
    const mine = this.held.get(chat);
    if (mine) {
      if (forRun && mine.kept) mine.kept = false;
      else mine.uses++;
      return { fence: mine.fence, fresh: false };
    }
    const at = this.now();
    // A user run is left to the live process that last ran the chat (told by `chat_ready`), for a
    // bounded while; a delivery or a heartbeat is not (it needs no session, and must not wait).
    const left = forRun && !decided ? await this.affinity?.leftTo(chat, at) : undefined;
    if (left !== undefined) {
      this.elsewhere.set(chat, left.until, left.holder);
      return undefined;
    }
    const r = await this.port.acquireChat(chat, this.id, at, this.timings.leaseMs);
    this.affinity?.done(chat);
    if (r.type === 'held') {
      this.elsewhere.set(chat, r.expiresAt, r.holder);
      return undefined;
    }
    // Taken meanwhile by another use of this process: one holding, counted once more.
    const again = this.held.get(chat);
    if (again && again.fence.epoch === r.fence.epoch) {
      again.uses++;
      return { fence: again.fence, fresh: false };
    }
    this.held.set(chat, { fence: r.fence, uses: 1, confirmedAt: at });
    this.lost.delete(chat);
    this.elsewhere.clear(chat);
    return { fence: r.fence, fresh: true };
  }

  /**
   * One use ended; the last one gives the lease back, so a process beside this one may take the chat.
   * `fence`: the one the use was taken with. A use of a lease this process lost ends with nothing
   * to end: the chat taken again since is another holding (a new epoch), whose uses are not its,
   * and counting it off them gave that lease back under a run still writing with it.
   */
  drop(chat: ChatKey, fence?: Fence): Promise<void> {
    return this.chains.run(chat, () => this.dropNow(chat, fence));
  }

  private async dropNow(chat: ChatKey, fence?: Fence): Promise<void> {
    const mine = this.held.get(chat);
    if (!mine || !sameLease(mine.fence, fence) || --mine.uses > 0) return;
    this.held.delete(chat);
    await this.port.releaseChat(mine.fence);
  }

  /**
   * A run's use kept for the chat's next run instead of ended, when its next message already waits:
   * no lease given back and taken again, nor what the chat left read again, between two runs. Every
   * write still carries the fence, and renewals go on. False: not held (any more, or not under
   * `fence`: lost and taken again since); drop instead.
   */
  keep(chat: ChatKey, fence?: Fence): Promise<boolean> {
    return this.chains.run(chat, async () => {
      const mine = this.held.get(chat);
      if (!mine || mine.kept || !sameLease(mine.fence, fence)) return false;
      mine.kept = true;
      return true;
    });
  }

  /** The kept use ended without a run to take it (the queue closing): the lease as `drop` leaves it. */
  unkeep(chat: ChatKey): Promise<void> {
    return this.chains.run(chat, async () => {
      const mine = this.held.get(chat);
      if (!mine?.kept) return;
      mine.kept = false;
      await this.dropNow(chat);
    });
  }

  /**
   * True while `fence` is still the chat's lease: checked before a send. A lease the store granted or
   * renewed less than a third of its length ago is still this process's (nobody may take it before
   * it runs out, and a process taken for dead went unseen for ten lease lengths), so only an older
   * one is renewed by asking: a process paused past its lease wakes to an old confirmation and asks.
   */
  async holds(fence: Fence): Promise<boolean> {
    const mine = this.held.get(fence.chat);
    const same = mine !== undefined && sameLease(mine.fence, fence);
    const at = this.now();
    if (same && at - mine.confirmedAt < this.timings.leaseMs / 3) return true;
    const ok = await this.port.renewChat(fence, at, this.timings.leaseMs);
    if (ok && same) mine.confirmedAt = Math.max(mine.confirmedAt, at);
    return ok;
  }

  /** The fence this process writes the chat's run-side rows with (a lost one, so the write is refused). */
  fence(chat: ChatKey): Fence | undefined {
    return this.held.get(chat)?.fence ?? this.lost.get(chat);
  }

  /** True while another live process holds the chat and nothing said it may have let go. */
  blocked = (chat: ChatKey): boolean => this.elsewhere.blocked(chat, this.now());

  /** The other live process this one last found holding the chat (or left it to), while that holds. */
  holderOf = (chat: ChatKey): string | undefined => this.elsewhere.holderOf(chat, this.now());

  /**
   * The process a message just stored is left to, from the chat's lease as the store saw it with the
   * row (held by another, or the live last runner while affinity allows): undefined when it is this one's.
   */
  leaveTo(chat: ChatKey, seen: LeaseSeen): string | undefined {
    const left = leftTo(this.id, chat, seen, this.affinity, this.now());
    if (left) this.elsewhere.set(chat, left.until, left.holder);
    else this.elsewhere.toMe(chat);
    return left?.holder;
  }

  /** Chats whose live lease another process holds. */
  async leasedByOthers(): Promise<Set<ChatKey>> {
    return new Set(await this.port.leasedByOthers(this.id, this.now()));
  }

  /** Called with a chat whose lease moved to another holder while this process held it. */
  onLost(handler: (chat: ChatKey) => void): void {
    this.lostHandler = handler;
  }

  /** Called on each renewal with the chats whose unfinished work nobody live holds. */
  onOrphans(handler: (chats: OrphanChat[]) => void): void {
    this.orphanHandler = handler;
  }

  /** Keeps trying to lead `name` (e.g. `scheduler:console`); `gained`/`lost` on changes (queue/leads.ts). */
  lead(name: string, on: { gained(fence: Fence): void; lost(): void }): void {
    this.leadSet.lead(name, on);
  }

  /** Stops asking for the lead `name` and gives it back (lost first when held), so another process takes it. */
  unlead(name: string): Promise<void> {
    return this.leadSet.unlead(name);
  }

  /** True while this process holds the lead `name` (as of its last round). */
  leads(name: string): boolean {
    return this.leadSet.leads(name);
  }

  /** Asks the store whether the lead `name` is still ours with its epoch (checked before a lead's send). */
  stillLeads(name: string): Promise<boolean> {
    return this.leadSet.stillLeads(name);
  }

  /** The other process that holds the lead `name` when this one does not (as of the last round). */
  leadHolder(name: string): ProcessInfo | undefined {
    return this.leadSet.holder(name);
  }

  /** Tells this process at once and the others on their next poll. */
  async notify(topic: Topic, key: string): Promise<void> {
    this.notices.dispatch(topic, key, true, this.now());
    await this.port.notify(topic, key, this.id, this.now());
  }

  /** `notify` for a caller that does not wait: a failure is logged (the store may be busy a moment). */
  tell(topic: Topic, key: string): void {
    this.notify(topic, key).catch((err) =>
      this.log.warn({ err, topic }, 'could not tell the other processes'),
    );
  }

  on(topic: Topic, handler: Handler): void {
    this.notices.on(topic, handler);
  }

  /** One round: notifications always; every `renewMs` the registry, the leases and the orphan scan. */
  tick(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    // Once per streak of failures: a store that is down fails every round (twice a second), and
    // the relay already says so in one line (store/availability.ts).
    this.ticking ??= this.round()
      .then(() => {
        if (this.failing) this.log.info('ownership rounds succeed again');
        this.failing = false;
      })
      .catch((err) => {
        if (this.failing) this.log.debug({ err }, 'ownership round failed again');
        else this.log.warn({ err }, 'ownership round failed; trying again');
        this.failing = true;
      })
      .finally(() => {
        this.ticking = undefined;
      });
    return this.ticking;
  }

  private async round(): Promise<void> {
    const renewing = this.now() - this.lastRenew >= this.timings.renewMs;
    if (!this.unwatch || renewing) await this.notices.read();
    if (!renewing) return;
    this.lastRenew = this.now();
    if (!(await this.port.touch(this.id, this.now())))
      this.log.warn({ process: this.id }, 'this process was taken for dead by another; its leases are gone');
    await this.reap();
    for (const [chat, h] of [...this.held]) {
      const at = this.now();
      if (await this.port.renewChat(h.fence, at, this.timings.leaseMs)) {
        h.confirmedAt = Math.max(h.confirmedAt, at);
        continue;
      }
      if (this.held.get(chat) !== h) continue;
      this.held.delete(chat);
      this.lost.set(chat, h.fence);
      this.log.warn({ epoch: h.fence.epoch }, 'the lease of a chat moved to another process');
      this.lostHandler(chat);
    }
    await this.claimLeads();
    const orphans = await this.port.orphans(this.now());
    for (const o of orphans) this.elsewhere.clear(o.chat);
    if (orphans.length > 0) this.orphanHandler(orphans);
    await this.port.pruneNotifications(this.now() - 10 * this.timings.leaseMs);
  }

  /**
   * Asks for every lead this process wants now, not at the next renewal round: a relay's scheduler
   * starts as soon as the relay does when nobody else leads.
   */
  claimLeads(): Promise<void> {
    return this.leadSet.claim();
  }

  private async reap(): Promise<void> {
    const stale = 10 * this.timings.leaseMs;
    const dead = await this.port.reap(
      this.now(),
      (p) => p.id !== this.id && processGone(p, this.now(), stale),
    );
    if (dead.length > 0)
      this.log.warn({ pids: dead.map((p) => p.pid) }, 'released the leases of processes gone');
  }

  /** Another process's notification, before its handlers: one naming a holder leaves the chat to it. */
  private heard(n: Notification): void {
    const r = n.topic === 'chat_ready' ? parseReadyKey(n.key) : undefined;
    if (r?.holder === this.id) this.elsewhere.toMe(r.chat);
    else if (r && forMe(r, this.id)) this.elsewhere.clear(r.chat);
  }

  /** Stops the timer, gives back every lease and leaves the registry. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.unwatch?.();
    await this.ticking;
    await this.notices.settled();
    this.leadSet.loseAll();
    this.held.clear();
    await this.port.deregister(this.id);
  }
}

/** True when `fence` (when given) is the lease `held` is: same holder, same epoch. */
function sameLease(held: Fence, fence: Fence | undefined): boolean {
  return fence === undefined || (held.epoch === fence.epoch && held.holder === fence.holder);
}
