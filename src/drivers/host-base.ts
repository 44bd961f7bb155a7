// What a shared warm host (./codex-host.ts, ./acp-host.ts) is apart from its protocol: one live
// process under several sessions, each session a link told of every fault. Faults: anything wrong
// with the process or its stream (it exited, garbage, a stray response) breaks every session on it,
// and the pool replaces each as it would a dead process. A session whose own turn will not stop
// breaks alone: the process is killed at once when no other session on it is mid-turn, else it
// takes no new sessions and is killed as soon as none is (the others' turns finish first), so one
// stuck chat never cuts another's answer short.
import { randomUUID } from 'node:crypto';
import type { GroupGuard, StdioChild } from '../runner/spawn-stdio.js';
import type { SharedHost } from './hosts.js';
import { type ErrorResult, failureResult } from './results.js';
import { type Settled, Trouble } from './trouble.js';
import type { DriverFault, DriverProcess } from './types.js';
import { endChild, KILL_GRACE_MS, START_TIMEOUT_MS, startWarmChild } from './warm-child.js';

/** One session as any host sees it. */
export interface HostLink {
  busy(): boolean;
  /** The process is gone or unusable: the session is broken too. */
  onFault(f: DriverFault): void;
}

export interface HostBaseOptions {
  name: string;
  process: DriverProcess;
  guard?: GroupGuard;
  /** How long the protocol's hello may go unanswered; START_TIMEOUT_MS when unset. */
  startTimeoutMs?: number;
}

export abstract class HostBase<L extends HostLink> implements SharedHost {
  readonly id = randomUUID();
  protected child: StdioChild | undefined;
  protected readonly links = new Set<L>();
  protected readonly trouble: Trouble;
  protected closed = false;
  /** A stuck session gave up on it: no new sessions, killed once no turn runs on it. */
  private retired = false;
  private starting: Promise<ErrorResult | undefined> | undefined;

  constructor(
    private readonly base: HostBaseOptions,
    /** An error the protocol's request rejects with (an answer, not a fault). */
    isRejection: (error: unknown) => boolean,
    /** The words of such an answer, for telling its kind (sign-in, rate limit…). */
    private readonly rejectionText: (error: unknown) => string,
  ) {
    this.trouble = new Trouble(isRejection, () => this.closed);
  }

  /** Speaks the protocol's hello on the started process; undefined when ready. */
  protected abstract connect(child: StdioChild, t0: number): Promise<ErrorResult | undefined>;

  /** Before the process starts (ACP loads its library there, as it always did first). */
  protected async prepare(): Promise<void> {}

  /** A session left while others stay (codex lets the process drop its thread). */
  protected async released(_link: L): Promise<void> {}

  /** The process is being closed: the protocol's own goodbye, before its input ends. */
  protected closing(): void {}

  /** Sessions on it now mid-turn. */
  busySessions(): number {
    let n = 0;
    for (const l of this.links) if (l.busy()) n++;
    return n;
  }

  attached(): number {
    return this.links.size;
  }

  accepting(): boolean {
    return !this.closed && !this.retired && !this.trouble.fault;
  }

  attach(link: L): void {
    this.links.add(link);
    if (this.trouble.fault) link.onFault(this.trouble.fault);
  }

  /** The session closed: the process goes with its last one. */
  async detach(link: L): Promise<void> {
    if (!this.links.delete(link)) return;
    if (this.links.size > 0) {
      await this.released(link);
      this.reap();
      return;
    }
    await this.shutdown();
  }

  pid(): number | undefined {
    return this.trouble.fault || this.closed ? undefined : this.child?.pid;
  }

  fault(): DriverFault | undefined {
    return this.trouble.fault;
  }

  stderrTail(): string {
    return this.child?.stderrTail() ?? '';
  }

  /** Starts the process and says hello, once for all its sessions; undefined when ready. */
  start(t0: number): Promise<ErrorResult | undefined> {
    this.starting ??= this.startNow(t0);
    return this.starting;
  }

  /**
   * One session's turn will not stop (or a request of its timed out): the process is given up. It
   * is killed now if no other session on it is mid-turn; else it takes no new sessions and no new
   * turns (its idle sessions break, and the pool reopens them elsewhere on their sessions), and is
   * killed as soon as the turns still running have ended.
   */
  giveUp(link: L): void {
    this.retired = true;
    this.reap(link);
  }

  /** A session's turn ended: a retired process loses that session, and is killed once none runs. */
  turnEnded(): void {
    // After the caller has looked at its result, so that turn is not taken for one the kill ended.
    setImmediate(() => this.reap());
  }

  protected reap(giver?: L): void {
    if (!this.retired) return;
    const f: DriverFault = { type: 'unresponsive', what: 'a turn that would not stop' };
    const others = [...this.links].filter((l) => l !== giver);
    for (const l of others) if (!l.busy()) l.onFault(f);
    if (!others.some((l) => l.busy())) this.kill(f);
  }

  protected kill(fault: DriverFault): void {
    this.raise(fault);
    void this.child?.stop(KILL_GRACE_MS);
  }

  protected raise(fault: DriverFault): void {
    if (this.closed && fault.type === 'exited' && this.trouble.fault) return;
    const f = this.trouble.raise(fault);
    for (const l of this.links) l.onFault(f);
  }

  /**
   * The protocol's hello (`initialize`) within the start limit: its answer, or the error result the
   * open ends with. A process that never answers is killed: it would never speak.
   */
  protected async hello<T>(
    request: Promise<T>,
    t0: number,
  ): Promise<{ type: 'value'; value: T } | ErrorResult> {
    const r = await this.settle(request, this.base.startTimeoutMs ?? START_TIMEOUT_MS);
    if (r.type === 'value') return r;
    if (r.type === 'timeout') this.kill({ type: 'unresponsive', what: 'initialize' });
    return failureResult(this.base.name, r, {
      t0,
      what: 'initialize',
      rejectedKind: 'exit',
      stderr: this.stderrTail(),
      rejectionText: this.rejectionText,
    });
  }

  protected settle<T>(p: Promise<T>, timeoutMs: number): Promise<Settled<T>> {
    return this.trouble.settle(p, timeoutMs);
  }

  private async shutdown(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.closing();
    const child = this.child;
    if (!child) return;
    await endChild(child, KILL_GRACE_MS);
    this.trouble.raise({ type: 'exited', exitCode: null, signal: null });
  }

  private async startNow(t0: number): Promise<ErrorResult | undefined> {
    await this.prepare();
    const s = await startWarmChild(this.base, this.base.process.argv, t0);
    if (s.type === 'failed') {
      if (s.fault) this.raise(s.fault);
      return s.result;
    }
    const child = s.child;
    this.child = child;
    // Closed before it even started (the last session left meanwhile): it ends at once.
    if (this.closed) child.stdin.end();
    void child.exited.then((e) => this.raise({ type: 'exited', exitCode: e.exitCode, signal: e.signal }));
    return this.connect(child, t0);
  }
}
