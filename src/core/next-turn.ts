// One turn of the event loop: resolves from the check phase (setImmediate), after the poll for
// I/O that the current turn makes, so whatever already waited on a socket or pipe has been read.
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
