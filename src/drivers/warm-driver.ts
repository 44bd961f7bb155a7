// What every warm driver is apart from its process and protocol: its state and pid as the pool reads
// them, the checks a turn or an open must pass before anything is asked of the process, and a stop
// of the running turn. The drivers with a process of their own (./claude.ts, ./pi.ts) and the
// sessions on a shared host (./hosted-session.ts) differ only in where the facts below come from.
import type { AgentResult } from '../agents/types.js';
import { driverState, type ErrorResult, errorResult, turnRefusal, unusableResult } from './results.js';
import type { DriverFault, DriverOptions, DriverState, TurnRequest } from './types.js';

/** A running turn as far as stopping it goes. */
export interface StoppableTurn {
  stop(why: 'timeout' | 'aborted'): void;
  done: Promise<AgentResult>;
}

/** `C`: the live connection a turn runs on; `O`: the driver's options. */
export abstract class WarmDriver<C, O extends DriverOptions = DriverOptions> {
  protected closed = false;

  constructor(protected readonly opts: O) {}

  /** The process's first fault, if any: from then on the driver is broken. */
  protected abstract readonly fault: DriverFault | undefined;
  /** The open session, if any. */
  protected abstract openSession(): string | undefined;
  /** The turn under way, if any: it runs on the open session (an open is refused meanwhile). */
  protected abstract runningTurn(): StoppableTurn | undefined;
  /** The connection a turn is sent on, while the process is up. */
  protected abstract connection(): C | undefined;
  /** The process's pid while it runs. */
  protected abstract livePid(): number | undefined;
  /** The turn itself, once `turn` found the session open and the connection live. */
  protected abstract runTurn(
    conn: C,
    sessionId: string,
    request: TurnRequest,
    t0: number,
  ): Promise<AgentResult>;

  state(): DriverState {
    const { closed, fault } = this;
    const session = this.openSession();
    return driverState({ closed, fault, busy: this.runningTurn() ? session : undefined, session });
  }

  pid(): number | undefined {
    return this.fault || this.closed ? undefined : this.livePid();
  }

  turn(request: TurnRequest): Promise<AgentResult> {
    const t0 = performance.now();
    const { closed, fault } = this;
    const sessionId = this.openSession();
    const conn = this.connection();
    const refused = turnRefusal(
      this.opts.name,
      {
        closed,
        fault,
        busy: this.turnBusy(),
        sessionId,
        connected: !!conn,
        aborted: request.signal?.aborted,
      },
      t0,
    );
    // `turnRefusal` refused a missing session or conn; the test again only narrows their types.
    if (refused || !sessionId || !conn) return Promise.resolve(refused ?? this.unusable(t0));
    return this.runTurn(conn, sessionId, request, t0);
  }

  async cancel(): Promise<void> {
    const turn = this.runningTurn();
    if (!turn) return;
    turn.stop('aborted');
    await turn.done;
  }

  /** Whether a new turn must wait: one is under way (a driver may count more, as its start-up). */
  protected turnBusy(): boolean {
    return !!this.runningTurn();
  }

  /** Why an open cannot start now (closed, broken, or a turn running), or undefined. */
  protected openRefusal(t0: number): ErrorResult | undefined {
    if (this.closed || this.fault) return this.unusable(t0);
    if (this.runningTurn()) return errorResult(this.opts.name, 'exit', t0, { detail: 'a turn is running' });
    return undefined;
  }

  protected unusable(t0: number): ErrorResult {
    return unusableResult(this.opts.name, this.fault, t0);
  }
}
