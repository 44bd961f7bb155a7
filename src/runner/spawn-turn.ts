// Starting a process blocks the event loop: libuv forks and then waits until the child has called
// exec, about 5 ms at the relay's size and more on a busy machine (bench/webhook-ack, burst: ~0.5 s
// of 10 s of relay time under a burst went to child_process.spawn alone). Every webhook that
// arrives meanwhile waits for its 200, and in a burst the first message of 20 chats arrives at
// once. So a run's start waits for its turn:
// - until the webhooks in hand are answered (core/answering.ts), and the webhooks have been quiet
//   for QUIET_MS, since a sender's next requests follow its answers within a millisecond or two
//   (a pool of connections, each reused as soon as it is answered);
// - at most MAX_WAIT_MS in all, so a steady stream of webhooks delays a start, never stops it;
// - then one spawn per event-loop iteration, each after the I/O already waiting has been handled.
import { allAnswered, lastAnsweredAt, unanswered } from '../core/answering.js';
import { nextTurn } from '../core/next-turn.js';

const MAX_WAIT_MS = 100;
const QUIET_MS = 5;

let last: Promise<void> = Promise.resolve();

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function myTurn(): Promise<void> {
  const deadline = performance.now() + MAX_WAIT_MS;
  for (;;) {
    const now = performance.now();
    if (now >= deadline) break;
    if (unanswered() > 0) {
      await allAnswered(deadline - now);
      continue;
    }
    const quietFor = now - lastAnsweredAt();
    if (quietFor >= QUIET_MS) break;
    await pause(Math.min(QUIET_MS - quietFor, deadline - now));
  }
  await nextTurn();
}

/** Resolves when this caller may start its process: after webhooks in hand and the previous caller. */
export function spawnTurn(): Promise<void> {
  const turn = last.then(myTurn);
  last = turn;
  return turn;
}
