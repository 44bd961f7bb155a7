// Ports for relay processes that bind them themselves, seconds after the test picks one.
//
// Why not `listen(0)` and close: that port comes from the kernel's ephemeral range, where every
// other `listen(0)` (the fake servers, other test files' media servers) and every outgoing
// connection draws too. While a relay is still starting on a loaded machine, another file's fake
// server can be given the same port, answer the test's webhook with 200 and close, and only then
// does the relay bind it: the message is "accepted" by a server that is not the relay. That fits
// the one failure of faults/tools-crash seen under load (200 to the webhook, then no run, no
// outbox row, and nothing on the relay's stderr, where a failed bind would have been reported).
// These ports lie below the ephemeral range, so the kernel never hands them out, and each vitest
// worker draws from its own slice, so two workers of one run never pick the same port. A port is still checked free before it is given (another run on this
// machine may hold it), and each slice starts at a random place so two runs at once rarely meet.

import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const LOW = 20_000;
const SLICES = 8;
const SLICE = 1_500;

/** The first port of the kernel's ephemeral range (Linux), so ours never enter it. */
function ephemeralStart(): number {
  try {
    const first = Number(
      readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0],
    );
    return Number.isInteger(first) && first > 1024 ? first : 32_768;
  } catch {
    return 32_768;
  }
}

const canBind = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });

/** Hands out the ports first..first+size-1 in turn from a random start, each checked free first. */
export function portsFrom(first: number, size: number): () => Promise<number> {
  let next = Math.floor(Math.random() * size);
  return async () => {
    for (let tries = 0; tries < size; tries++) {
      const port = first + (next++ % size);
      if (await canBind(port)) return port;
    }
    throw new Error(`no free port in ${first}..${first + size - 1}`);
  };
}

// AGENTWIRE_TEST_PORT_SLICES shifts a suite's slices: CI runs the PostgreSQL suites beside the
// stress suites (.ci/run), and their workers' pool ids are the same numbers.
const shift = Number(process.env.AGENTWIRE_TEST_PORT_SLICES ?? 0) || 0;
const slice = (((Number(process.env.VITEST_POOL_ID ?? process.pid) + shift) % SLICES) + SLICES) % SLICES;
const size = Math.max(100, Math.min(SLICE, Math.floor((ephemeralStart() - LOW) / SLICES)));

/** A port free on 127.0.0.1 right now, outside the kernel's ephemeral range, unique within this run. */
export const freePort: () => Promise<number> = portsFrom(LOW + slice * size, size);
