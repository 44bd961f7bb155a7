// Starting a process blocks the event loop: libuv forks and then waits until the child has called
// exec, which on a busy machine takes several milliseconds and sometimes tens (bench/webhook-ack,
// burst: 14 ms median, 100 ms at worst, ~1 s of 10 s of relay time under a burst, in
// child_process.spawn alone). Every webhook that arrives meanwhile waits for its 200. So a run's
// start waits for its turn: one spawn per event-loop iteration, each after the I/O already waiting
// (webhooks read, their answers written) has been handled.
let last: Promise<void> = Promise.resolve();

/** Resolves when this caller may start its process: after pending I/O and after the previous caller. */
export function spawnTurn(): Promise<void> {
  const turn = last.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
  last = turn;
  return turn;
}
