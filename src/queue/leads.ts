// The leader leases one process asks for (store/ownership.ts `acquireLeader`): the scheduler, a
// channel's one consumer (`channel:whatsapp`, its socket). Kept by ProcessOwner, which asks for them
// again on every renewal round; each lead is told `gained` (with the lease's fence) and `lost` on a
// change, and which other process holds it is remembered for `status` ("held by host-b pid 4242").
import type { Logger } from '../log.js';
import type { Fence, OwnershipStore, ProcessInfo } from '../store/ownership.js';

interface Lead {
  on: boolean;
  epoch?: number;
  /** The process id of another holder, as the last round saw it. */
  holder?: string;
  gained(fence: Fence): void;
  lost(): void;
}

export class Leads {
  private readonly leaders = new Map<string, Lead>();
  /** The processes last read from the registry, to name another lead's holder (host and pid). */
  private known = new Map<string, ProcessInfo>();
  private claiming: Promise<void> = Promise.resolve();

  constructor(
    private readonly port: Pick<OwnershipStore, 'acquireLeader' | 'releaseLeader' | 'processes'>,
    private readonly self: () => string,
    private readonly now: () => number,
    private readonly leaseMs: number,
    private readonly log: Logger,
  ) {}

  lead(name: string, on: { gained(fence: Fence): void; lost(): void }): void {
    this.leaders.set(name, { on: false, ...on });
  }

  async unlead(name: string): Promise<void> {
    const l = this.leaders.get(name);
    if (!l) return;
    this.leaders.delete(name);
    if (l.on) l.lost();
    await this.port.releaseLeader(name, this.self());
  }

  leads(name: string): boolean {
    return this.leaders.get(name)?.on === true;
  }

  async stillLeads(name: string): Promise<boolean> {
    const l = this.leaders.get(name);
    if (!l?.on) return false;
    const r = await this.port.acquireLeader(name, this.self(), this.now(), this.leaseMs);
    return r.type === 'granted' && r.fence.epoch === l.epoch;
  }

  holder(name: string): ProcessInfo | undefined {
    const l = this.leaders.get(name);
    return l && !l.on && l.holder ? this.known.get(l.holder) : undefined;
  }

  /** The stopping process's leads end here (the store releases them with its row). */
  loseAll(): void {
    for (const l of this.leaders.values()) if (l.on) l.lost();
  }

  claim(): Promise<void> {
    // One round at a time: two rounds at once would both see a lead as new and gain it twice.
    const next = this.claiming.then(() => this.round());
    this.claiming = next.catch(() => undefined);
    return next;
  }

  private async round(): Promise<void> {
    for (const [name, l] of [...this.leaders]) {
      if (this.leaders.get(name) !== l) continue;
      const r = await this.port.acquireLeader(name, this.self(), this.now(), this.leaseMs);
      // Given up meanwhile (`unlead`): what this round took goes back.
      if (this.leaders.get(name) !== l) {
        if (r.type === 'granted') await this.port.releaseLeader(name, this.self());
        continue;
      }
      const on = r.type === 'granted';
      const epoch = r.type === 'granted' ? r.fence.epoch : undefined;
      const holder = r.type === 'held' ? r.holder : undefined;
      if (holder !== l.holder) {
        l.holder = holder;
        if (holder && !this.known.has(holder))
          this.known = new Map((await this.port.processes()).map((p) => [p.id, p]));
      }
      if (on === l.on && epoch === l.epoch) continue;
      // Led by another meanwhile and taken back: the old fence is refused, so lose and gain again.
      if (on && l.on) l.lost();
      l.on = on;
      l.epoch = epoch;
      this.log.info({ leader: name, on }, on ? 'leading' : 'no longer leading');
      if (r.type === 'granted') l.gained(r.fence);
      else l.lost();
    }
  }
}
