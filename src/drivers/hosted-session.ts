// What a session on a shared host (./acp.ts, ./codex.ts) is apart from its protocol: the checks
// before an open or a turn, opening or resuming its session within the start limit, stopping and
// closing, and how a request that got no answer becomes an error result. A session is broken by its
// host's faults (the link's `onFault`) or by its own turn that will not stop (`breakWith`), which
// gives the host up as ./host-base.ts decides.
import type { AgentResult, SessionRef } from '../agents/types.js';
import {
  driverState,
  type ErrorResult,
  errorResult,
  type Failed,
  failureResult,
  turnRefusal,
  unusableResult,
} from './results.js';
import { type Settled, Trouble } from './trouble.js';
import type {
  DriverFault,
  DriverOptions,
  DriverState,
  OpenResult,
  SessionDriver,
  TurnRequest,
} from './types.js';
import { CANCEL_GRACE_MS, START_TIMEOUT_MS } from './warm-child.js';

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

/** A running turn as far as stopping it goes. */
export interface StoppableTurn {
  stop(why: 'timeout' | 'aborted'): void;
  done: Promise<AgentResult>;
}

export abstract class HostedSession<L, C, T extends StoppableTurn> implements SessionDriver {
  protected abstract readonly host: SessionHost<L, C>;
  protected abstract readonly link: L;
  /** The open session (codex: its thread). */
  protected sessionId: string | undefined;
  protected current: T | undefined;
  protected closed = false;
  protected readonly trouble: Trouble;

  constructor(
    protected readonly opts: DriverOptions,
    /** An error the protocol's request rejects with (the agent's answer, not a fault). */
    isRejection: (error: unknown) => boolean,
    /** The words of such an answer, for telling its kind (rate limit, sign-in…). */
    private readonly rejectionText: (error: unknown) => string,
  ) {
    this.trouble = new Trouble(isRejection, () => this.closed);
  }

  abstract open(session: SessionRef): Promise<OpenResult>;
  abstract steer(text: string): ReturnType<SessionDriver['steer']>;
  /** The turn itself, once `turn` found the session open and the connection live. */
  protected abstract runTurn(
    conn: C,
    sessionId: string,
    request: TurnRequest,
    t0: number,
  ): Promise<AgentResult>;

  /** Another session on this process is mid-turn (this one's turn, if any, counts too). */
  othersBusy(): boolean {
    return this.host.busySessions() > (this.current ? 1 : 0);
  }

  hostId(): string {
    return this.host.id;
  }

  state(): DriverState {
    const { closed, fault, sessionId: session } = this;
    // A turn runs on the open session: `open` is refused while one runs.
    return driverState({ closed, fault, busy: this.current ? session : undefined, session });
  }

  pid(): number | undefined {
    return this.fault || this.closed ? undefined : this.host.pid();
  }

  turn(request: TurnRequest): Promise<AgentResult> {
    const t0 = performance.now();
    const { closed, fault, sessionId } = this;
    const conn = this.host.connection();
    const refused = turnRefusal(
      this.opts.name,
      { closed, fault, busy: !!this.current, sessionId, connected: !!conn, aborted: request.signal?.aborted },
      t0,
    );
    // `turnRefusal` refused a missing session or conn; the test again only narrows their types.
    if (refused || !sessionId || !conn) return Promise.resolve(refused ?? this.unusable(t0));
    return this.runTurn(conn, sessionId, request, t0);
  }

  async cancel(): Promise<void> {
    const turn = this.current;
    if (!turn) return;
    turn.stop('aborted');
    await turn.done;
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
    if (this.closed || this.fault) return this.unusable(t0);
    if (this.current) return errorResult(this.opts.name, 'exit', t0, { detail: 'a turn is running' });
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
  protected get fault(): DriverFault | undefined {
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

  protected unusable(t0: number): ErrorResult {
    return unusableResult(this.opts.name, this.fault, t0);
  }
}
