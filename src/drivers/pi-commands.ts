// A pi command the driver waits on outside a turn (`get_state` at start, `switch_session`): its
// answer, the fault that broke the process meanwhile, or its time limit, whichever comes first;
// and what each of those means as an error result. The turn's own commands are answered by
// callbacks instead (./pi.ts): a turn ends on events, not on one answer.
import type { PiJson, PiResponse, PiTransport } from './pi-transport.js';
import { type ErrorResult, errorResult, faultDetail, faultKind, rejectionKind } from './results.js';
import type { DriverFault } from './types.js';

export type PiAnswer =
  | { type: 'response'; response: PiResponse }
  | { type: 'fault'; fault: DriverFault }
  | { type: 'timeout' };

export class PiWaits {
  private waiters: ((f: DriverFault) => void)[] = [];

  /** Sends a command and waits for its answer, a fault (`wake`), or the timeout. */
  ask(
    rpc: PiTransport | undefined,
    fault: DriverFault | undefined,
    command: PiJson,
    timeoutMs: number,
  ): Promise<PiAnswer> {
    return new Promise((resolve) => {
      if (fault || !rpc) {
        resolve({ type: 'fault', fault: fault ?? { type: 'start_failed', detail: 'not started' } });
        return;
      }
      const waiter = (f: DriverFault) => {
        clearTimeout(timer);
        resolve({ type: 'fault', fault: f });
      };
      this.waiters.push(waiter);
      const forget = () => {
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== waiter);
      };
      const timer = setTimeout(() => {
        forget();
        resolve({ type: 'timeout' });
      }, timeoutMs);
      rpc.send(command, (response) => {
        forget();
        resolve({ type: 'response', response });
      });
    });
  }

  /** The process broke (or exited): every command still waiting ends with the fault. */
  wake(fault: DriverFault): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w(fault);
  }
}

/**
 * Pure: the error an answer to `what` means, or undefined when it was a success. A refusal is of
 * `refusedKind` unless pi's words say more (no key, a rate limit); an exit shows pi's stderr.
 */
export function piRefusal(
  name: string,
  r: PiAnswer,
  t0: number,
  what: string,
  refusedKind: ErrorResult['kind'],
  stderr: string,
): ErrorResult | undefined {
  if (r.type === 'response') {
    if (r.response.success) return undefined;
    return errorResult(name, rejectionKind(r.response.error, refusedKind), t0, { detail: r.response.error });
  }
  if (r.type === 'timeout') return errorResult(name, 'timeout', t0, { detail: `no answer to ${what}` });
  const f = r.fault;
  const exit = f.type === 'exited' ? { exitCode: f.exitCode, signal: f.signal } : {};
  const detail = f.type === 'exited' && stderr.trim() ? stderr : faultDetail(f);
  return errorResult(name, faultKind(f), t0, { detail, ...exit });
}
