// A channel's part that only one process may run at a time, whatever number of relays share the store:
// WhatsApp's socket (two sockets on one link kick each other off), Telegram's long poll (a second
// getUpdates consumer of one bot gets 409 Conflict) and Twilio's poll mode (two pollers answer one
// message twice). It runs under the leader lease `channel:<name>` (store/ownership.ts): the relay
// hands the channel a SingleConsumer, and the channel starts that part when this process gains the
// lease and stops it when it loses it (another process took over after this one was paused past
// its lease). Without one (a test building the channel alone) the part simply runs.

import type { Fence } from '../store/ownership.js';
import type { ChannelState } from './types.js';

/** The one-consumer lease of a channel, as the channel sees it. */
export interface SingleConsumer {
  /**
   * Calls `gained` when this process becomes the channel's one consumer, `lost` when it stops being
   * it; to the function that stops asking (and gives the lease back, so another process takes over).
   */
  lead(on: { gained(fence: Fence): void; lost(): void }): () => Promise<void>;
  /** Who else is the consumer ("host-b pid 4242"), or undefined (this process is, or nobody yet). */
  heldBy(): string | undefined;
  /** True when this process still holds the lease, asked of the store (before a send only it may make). */
  stillHolds(): Promise<boolean>;
}

export interface ConsumerPart {
  /** Stops it for good and gives the lease back. */
  cancel(): Promise<void>;
  /** True while this process runs it. */
  running(): boolean;
  /** Resolves once the starts and stops asked for so far are done. */
  settled(): Promise<void>;
}

/**
 * Runs `part` while this process is the channel's consumer: `start` on a gain, `stop` on a loss,
 * one after the other (a loss right after a gain stops what the gain started). `cancel` stops it
 * for good (the channel stops).
 */
export function consumeWhileHeld(
  single: SingleConsumer | undefined,
  /** `start` gets the lease's fence (writes only the consumer may make carry it); none without a lease. */
  part: { start(fence?: Fence): Promise<void>; stop(): Promise<void> },
  onError: (err: unknown) => void,
  /** Called at once on a loss, before `stop` waits its turn: ends a `start` still trying. */
  interrupt: () => void = () => undefined,
): ConsumerPart {
  let chain: Promise<void> = Promise.resolve();
  let on = false;
  let cancelled = false;
  const serial = (fn: () => Promise<void>) => {
    chain = chain.then(fn).catch(onError);
    return chain;
  };
  const start = (fence?: Fence) =>
    serial(async () => {
      if (cancelled || on) return;
      on = true;
      await part.start(fence);
    });
  const stop = () => {
    interrupt();
    return serial(async () => {
      if (!on) return;
      on = false;
      await part.stop();
    });
  };
  const unlead = single
    ? single.lead({ gained: (fence) => void start(fence), lost: () => void stop() })
    : undefined;
  if (!single) void start();
  return {
    cancel: async () => {
      cancelled = true;
      await stop();
      await unlead?.();
    },
    running: () => on,
    settled: () => chain,
  };
}

/** One sentence for a consumer that runs elsewhere: "held by host-b pid 4242". */
export const heldText = (holder: { host: string; pid: number }): string =>
  `held by ${holder.host} pid ${holder.pid}`;

/**
 * The channel's state with the consumer named as of now: an `elsewhere` state is set when this
 * process stops or finds the part held, often before its first lease round has read who holds it,
 * and nothing sets it again while the holder stays the same.
 */
export function withLiveHolder(state: ChannelState, single: SingleConsumer | undefined): ChannelState {
  if (state.type !== 'elsewhere') return state;
  const holder = single?.heldBy();
  return holder ? { ...state, holder } : state;
}
