// Whether a relay process currently owns the linked device. `login`, `logout` and `send` never open a
// second connection while one runs: two sockets on one link kick each other off (close code 440).
// Asked of the socket's lease in the store (`channel:whatsapp`, held by the one relay that runs the
// socket, on this host or any other sharing the database), and of this home's relay lock through its
// own probe (store/home-lock.ts): a relay of this home that does not hold the socket yet still owns
// the link here, and a dead one left as a zombie, or a process reusing its PID, never counts.
import type { Paths } from '../../config/paths.js';
import { probeLock } from '../../store/home-lock.js';
import type { ProcessInfo } from '../../store/ownership.js';
import type { StatusReader } from '../../store/status-read.js';
import { heldText } from '../single.js';

/** `pid N` (or a note that it did not say) for a live relay holding the lock, else undefined. */
export async function runningRelay(paths: Pick<Paths, 'lock' | 'home'>): Promise<string | undefined> {
  const s = await probeLock(paths.lock, paths.home);
  if (s.type === 'live') return s.pid === process.pid ? undefined : `pid ${s.pid}`;
  return s.type === 'silent' ? 'pid unknown' : undefined;
}

/** The socket's live lease holder, as the store has it, or undefined when no process holds it. */
export async function socketHolder(
  status: StatusReader,
  now = Date.now(),
): Promise<{ process?: ProcessInfo; text: string } | undefined> {
  const facts = await status.read();
  const lease = facts.leases?.find((l) => l.name === 'channel:whatsapp' && l.expiresAt > now);
  if (!lease) return undefined;
  const p = facts.processes?.find((x) => x.id === lease.holder);
  return p ? { process: p, text: heldText(p) } : { text: 'held by a process gone from the registry' };
}
