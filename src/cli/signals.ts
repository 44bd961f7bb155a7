// SIGINT and SIGTERM for a long-running command, listened for once for the life of the process.
// Why not a listener for start-up swapped for another once started: Node reads a caught signal from
// a pipe on a later turn of the event loop, for the listeners there were when it came; one removed
// by then gets nothing and the new one never hears of it. A relay sent SIGTERM as its start-up
// ended kept running, the signal gone. So one listener stays and only what it calls changes.

export type SignalHandler = (signal: NodeJS.Signals) => void;

export interface HeldSignals {
  /** From now on each signal goes to `handler`; those that came before go to it first, in order. */
  handle(handler: SignalHandler): void;
  /** Stops listening: the default (the process ends) applies again. */
  close(): void;
}

const NAMES: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];

/** Starts listening for SIGINT and SIGTERM, keeping what comes until a handler is given. */
export function holdSignals(): HeldSignals {
  const early: NodeJS.Signals[] = [];
  let handler: SignalHandler | undefined;
  const listener = (signal: NodeJS.Signals) => {
    if (handler) handler(signal);
    else early.push(signal);
  };
  for (const name of NAMES) process.on(name, listener);
  return {
    handle(h) {
      handler = h;
      for (const signal of early.splice(0)) h(signal);
    },
    close() {
      for (const name of NAMES) process.off(name, listener);
    },
  };
}
