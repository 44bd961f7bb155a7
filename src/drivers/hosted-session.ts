// What a session on a shared host (./acp.ts, ./codex.ts) is apart from its protocol: the checks
// before an open or a turn, opening or resuming its session within the start limit, stopping and
// closing, and how a request that got no answer becomes an error result. A session is broken by its
// host's faults (the link's `onFault`) or by its own turn that will not stop (`breakWith`), which
// gives the host up as ./host-base.ts decides.
import type { SessionRef } from '../agents/types.js';
import { type ErrorResult, type Failed, failureResult } from './results.js';
import { type Settled, Trouble } from './trouble.js';
import type { DriverFault, DriverOptions, OpenResult, SessionDriver } from './types.js';
import { CANCEL_GRACE_MS, START_TIMEOUT_MS } from './warm-child.js';
import { type StoppableTurn, WarmDriver } from './warm-driver.js';

export type { StoppableTurn } from './warm-driver.js';

/** The host as a session uses it (./acp-host.ts and ./codex-host.ts are both); `C` its connection. */
export interface SessionHost<L, C> {
  readonly id: string;
  attach(link: L): void;
  detach(link: L): Promise<void>;
  /** Starts the process and says hello once for all its sessions; undefined when ready. */
  start(t0: number): Promise<ErrorResult | undefined>;
  connection(): C | undefined;
  giveUp(link: L): void;
  turnEnded(): void;
  busySessions(): number;
  pid(): number | undefined;
  stderrTail(): string;
}

export abstract class HostedSession<L, C, T extends StoppableTurn>
  extends WarmDriver<C>
  implements SessionDriver
{
  protected abstract readonly host: SessionHost<L, C>;
  protected abstract readonly link: L;
  /** The open session (codex: its thread). */
  protected sessionId: string | undefined;
  protected current: T | undefined;
  protected readonly trouble: Trouble;

  constructor(
    opts: DriverOptions,
    /** An error the protocol's request rejects with (the agent's answer, not a fault). */
    isRejection: (error: unknown) => boolean,
    /** The words of such an answer, for telling its kind (rate limit, sign-in…). */
    private readonly rejectionText: (error: unknown) => string,
  ) {
    super(opts);
    this.trouble = new Trouble(isRejection, () => this.closed);
  }

  abstract open(session: SessionRef): Promise<OpenResult>;
  abstract steer(text: string): ReturnType<SessionDriver['steer']>;

  /** Another session on this process is mid-turn (this one's turn, if any, counts too). */
  othersBusy(): boolean {
    return this.host.busySessions() > (this.current ? 1 : 0);
  }

  hostId(): string {
    return this.host.id;
  }

  protected openSession(): string | undefined {
    return this.sessionId;
  }

  protected runningTurn(): T | undefined {
    return this.current;
  }

  protected connection(): C | undefined {
    return this.host.connection();
  }

  protected livePid(): number | undefined {
    return this.host.pid();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    const turn = this.current;
    // A running turn is stopped first (other sessions on the process go on); one that does not
    // stop within the grace gives the process up.
    if (turn) {
      turn.stop('aborted');
      await turn.done;
    }
    this.closed = true;
    // The last session on the process ends it (end of input, then TERM and KILL).
    await this.host.detach(this.link);
  }

  /**
   * The steps before a session is opened or resumed: this session usable and idle, the process
   * started and its hello said. The connection, or the error result the open ends with.
   */
  protected async connect(t0: number): Promise<{ type: 'ready'; conn: C } | ErrorResult> {
    const refused = this.openRefusal(t0);
    if (refused) return refused;
    const started = await this.host.start(t0);
    if (started) return started;
    const conn = this.host.connection();
    if (!conn || this.fault) return this.unusable(t0);
    return { type: 'ready', conn };
  }

  /** Opens or resumes the session by `request`, within the start limit; `idOf` reads its id. */
  protected async establish<V>(
    request: Promise<V>,
    idOf: (value: V) => string,
    t0: number,
    what: string,
    rejectedKind: ErrorResult['kind'],
  ): Promise<OpenResult> {
    const r = await this.settle(request, this.opts.startTimeoutMs ?? START_TIMEOUT_MS);
    if (r.type !== 'value') return this.failure(r, t0, what, rejectedKind);
    const sessionId = idOf(r.value);
    this.sessionId = sessionId;
    return { type: 'ok', sessionId };
  }

  /** After a stop, how long the turn may take to end before the session is broken. */
  protected graceTimer(what: string): NodeJS.Timeout {
    return setTimeout(
      () => this.breakWith({ type: 'unresponsive', what }),
      this.opts.cancelGraceMs ?? CANCEL_GRACE_MS,
    );
  }

  /** This session cannot be trusted any more: broken, and the process given up as its host decides. */
  protected breakWith(fault: DriverFault): void {
    if (this.fault) return;
    this.trouble.raise(fault);
    this.host.giveUp(this.link);
  }

  /** The process's first fault, if any: from then on it is broken. */
  protected override get fault(): DriverFault | undefined {
    return this.trouble.fault;
  }

  protected settle<V>(p: Promise<V>, timeoutMs: number): Promise<Settled<V>> {
    return this.trouble.settle(p, timeoutMs);
  }

  /** An error result for a request that did not answer; one that timed out breaks the session. */
  protected failure(
    r: Failed,
    t0: number,
    what: string,
    rejectedKind: ErrorResult['kind'],
    stopped?: 'timeout' | 'aborted',
  ): ErrorResult {
    if (r.type === 'timeout') this.breakWith({ type: 'unresponsive', what });
    const stderr = this.host.stderrTail();
    const rejectionText = this.rejectionText;
    return failureResult(this.opts.name, r, { t0, what, rejectedKind, stderr, rejectionText, stopped });
  }
}
