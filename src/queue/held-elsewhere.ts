// The chats another live process holds, as this process last found them (a lease attempt refused, a
// chat left to its last runner, the store's word with a stored message), until when and by whom. Not
// tried again before then, or before a notification or the orphan scan says the holder may have let go.
import type { ChatKey } from '../core/types.js';
import type { LeaseSeen } from '../store/queue-ops.js';
import type { AffinityWait } from './lease-affinity.js';

export class HeldElsewhere {
  private readonly chats = new Map<ChatKey, { until: number; holder: string }>();
  /**
   * Chats whose next run was found to be this process's (the lease read with a stored message, a
   * `chat_ready` naming this one): its next take needs no second read of the last runner.
   */
  private readonly mine = new Set<ChatKey>();

  set(chat: ChatKey, until: number, holder: string): void {
    this.chats.set(chat, { until, holder });
    this.mine.delete(chat);
  }

  clear(chat: ChatKey): void {
    this.chats.delete(chat);
  }

  /** The chat's next run is this process's, as just found. */
  toMe(chat: ChatKey): void {
    this.chats.delete(chat);
    this.mine.add(chat);
  }

  /** True once after `toMe`: the take it is for skips the read of the last runner. */
  takeMine(chat: ChatKey): boolean {
    return this.mine.delete(chat);
  }

  blocked(chat: ChatKey, now: number): boolean {
    const b = this.chats.get(chat);
    return b !== undefined && b.until > now;
  }

  /** The holder while the chat is blocked; undefined when not, or when the store did not name it. */
  holderOf(chat: ChatKey, now: number): string | undefined {
    const b = this.chats.get(chat);
    return b !== undefined && b.until > now && b.holder ? b.holder : undefined;
  }
}

/**
 * Who a chat is left to, from its lease as the store saw it: a live holder other than `me`, or, when
 * the lease is free, the live last runner while the affinity wait allows (queue/lease-affinity.ts).
 */
export function leftTo(
  me: string,
  chat: ChatKey,
  seen: LeaseSeen,
  affinity: Pick<AffinityWait, 'decide'> | undefined,
  now: number,
): { holder: string; until: number } | undefined {
  if (seen.type === 'held')
    return seen.holder === me ? undefined : { holder: seen.holder, until: seen.until };
  return affinity?.decide(chat, seen.last, now);
}
