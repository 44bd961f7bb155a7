// What a driver's pending requests wait on besides their answer: the fault that broke the process
// (the first one wins), or their own time limit. Shared by the JSON-RPC drivers (ACP, codex).
import type { DriverFault } from './types.js';

/** How a request ended: its answer, its rejection, the process's fault, or its time limit. */
export type Settled<T> =
  | { type: 'value'; value: T }
  | { type: 'rejected'; error: unknown }
  | { type: 'fault'; fault: DriverFault }
  | { type: 'timeout' };

/** After a rejection that is not the agent's own error, how long to wait for the exit that explains it. */
const EXIT_WAIT_MS = 2_000;

export class Trouble {
  /** The first fault: from then on the process is broken. */
  fault: DriverFault | undefined;
  private waiters: ((f: DriverFault) => void)[] = [];

  /**
   * @param isAgentError a rejection the agent sent as its answer (a JSON-RPC error); any other
   *   rejection means the connection closed under the request, and the exit that follows says why.
   * @param closed true once the driver itself closed: then nothing needs explaining.
   */
  constructor(
    private readonly isAgentError: (error: unknown) => boolean,
    private readonly closed: () => boolean,
  ) {}

  /** Records `fault` unless one came first, and wakes whatever waits; returns the fault in force. */
  raise(fault: DriverFault): DriverFault {
    if (!this.fault) this.fault = fault;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w(this.fault);
    return this.fault;
  }

  /** Resolves with the fault, now or when one comes. */
  once(): Promise<DriverFault> {
    if (this.fault) return Promise.resolve(this.fault);
    return new Promise((r) => this.waiters.push(r));
  }

  /** A request's outcome, or the fault or timeout that came first. `timeoutMs` 0 waits forever. */
  settle<T>(p: Promise<T>, timeoutMs: number): Promise<Settled<T>> {
    return new Promise((resolve) => {
      if (this.fault) {
        resolve({ type: 'fault', fault: this.fault });
        return;
      }
      let timer: NodeJS.Timeout | undefined;
      const waiter = (fault: DriverFault) => {
        clearTimeout(timer);
        resolve({ type: 'fault', fault });
      };
      this.waiters.push(waiter);
      const forget = () => {
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== waiter);
      };
      if (timeoutMs > 0) {
        timer = setTimeout(() => {
          forget();
          resolve({ type: 'timeout' });
        }, timeoutMs);
      }
      p.then(
        (value) => {
          forget();
          resolve({ type: 'value', value });
        },
        async (error: unknown) => {
          if (!this.isAgentError(error) && !this.closed()) {
            await Promise.race([this.once(), delay(EXIT_WAIT_MS)]);
          }
          forget();
          resolve(this.fault ? { type: 'fault', fault: this.fault } : { type: 'rejected', error });
        },
      );
    });
  }
}

const delay = (n: number) => new Promise<undefined>((r) => setTimeout(() => r(undefined), n).unref());
