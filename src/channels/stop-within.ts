// A channel's stop, bounded. A channel stops by closing what its library opened; a library that
// waits on a network which does not answer (a request with a two-minute timeout, a handshake) would
// otherwise hold the relay's whole shutdown, a second Ctrl-C included. Past the bound the relay
// goes on without it, says so, and the CLI ends the process (cli/relay.ts).
import { orAfter } from '../core/or-after.js';
import type { Logger } from '../log.js';
import type { Channel } from './types.js';

export const CHANNEL_STOP_MS = 10_000;

/** `stopped`: in time (a failure logged); `late`: still stopping after `ms`. */
export async function stopWithin(ch: Channel, ms: number, log: Logger): Promise<'stopped' | 'late'> {
  const stopped = ch.stop().then(
    () => 'stopped' as const,
    (err: unknown) => {
      log.error({ err, channel: ch.name }, 'channel stop failed');
      return 'stopped' as const;
    },
  );
  const outcome = await orAfter(stopped, ms, 'late' as const);
  if (outcome === 'late')
    log.warn({ channel: ch.name, ms }, 'channel did not stop in time: the relay stops without it');
  return outcome;
}
