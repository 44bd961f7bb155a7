// A chat sticks to the process that last ran it while that process is alive. Its agent session lives
// on that machine's disk (agents/session-places.ts) and its warm process may still be running there,
// so a message another process received is left to it: the receiver tells it (`chat_ready`) and waits.
// Not forever: a last runner that is busy (its run slots full) or slow to hear leaves the chat waiting
// at most `boundMs`, after which whoever tries takes it (and the chat's next reply says its context
// was reset, unless the agents' state is shared). The choice is pure (`leaseAffinity`, table-tested
// in test/queue/lease-affinity.test.ts); `AffinityWait` keeps since when each chat waits.
import type { ChatKey } from '../core/types.js';
import type { OwnershipStore } from '../store/ownership.js';

/** The chat's last lease holder as the store keeps it, with when that process was last seen alive. */
export interface LastRunner {
  holder: string;
  /** Its registry row's last renewal; undefined when it is no longer registered (stopped or reaped). */
  lastSeen: number | undefined;
}

export interface AffinityInput {
  me: string;
  last: LastRunner | undefined;
  now: number;
  /** A process not seen for this long is taken for gone (two missed renewals). */
  aliveMs: number;
  /** When this process first left the chat to its last runner (undefined: never yet). */
  waitingSince: number | undefined;
  boundMs: number;
}

export type AffinityChoice = 'take' | 'wait';

export function leaseAffinity(i: AffinityInput): AffinityChoice {
  if (!i.last || i.last.holder === i.me) return 'take';
  if (i.last.lastSeen === undefined || i.now - i.last.lastSeen > i.aliveMs) return 'take';
  if (i.waitingSince !== undefined && i.now - i.waitingSince >= i.boundMs) return 'take';
  return 'wait';
}

/** Since when each chat was left to its last runner, and until when it still is. */
export class AffinityWait {
  private readonly since = new Map<ChatKey, number>();

  constructor(
    private readonly port: Pick<OwnershipStore, 'lastHolder'>,
    private readonly me: string,
    private readonly boundMs: number,
    private readonly aliveMs: number,
  ) {}

  /** Until when the chat is left to its last runner; undefined: this process may take it now. */
  async until(chat: ChatKey, now: number): Promise<number | undefined> {
    return (await this.leftTo(chat, now))?.until;
  }

  /** The last runner the chat is left to, and until when; undefined: this process may take it now. */
  async leftTo(chat: ChatKey, now: number): Promise<{ holder: string; until: number } | undefined> {
    return this.decide(chat, await this.port.lastHolder(chat), now);
  }

  /** `leftTo` with the last runner already read (with a stored message, store/queue-ops.ts). */
  decide(
    chat: ChatKey,
    last: LastRunner | undefined,
    now: number,
  ): { holder: string; until: number } | undefined {
    const waitingSince = this.since.get(chat);
    const { me, aliveMs, boundMs } = this;
    if (!last || leaseAffinity({ me, last, now, aliveMs, waitingSince, boundMs }) === 'take')
      return undefined;
    if (waitingSince === undefined) this.since.set(chat, now);
    return { holder: last.holder, until: (waitingSince ?? now) + boundMs };
  }

  /** The chat was taken (here or elsewhere): a later wait starts anew. */
  done(chat: ChatKey): void {
    this.since.delete(chat);
  }
}
