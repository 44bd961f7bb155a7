// Sends what the outbox holds, one chat at a time and in order. A chunk is marked sent only after
// the channel confirmed it. A transient failure (provider down, 5xx, 429, timeout, reset) is tried
// again after a capped backoff, for `delivery.retryHours` from when the chunk was written; the time
// of the next try is stored, so a restart resumes the backoff instead of forgetting it. A chunk whose
// failures outlast that is expired, and the chat gets one short notice, which waits for the channel
// as long as it takes. A permanent failure is recorded, logged, and (for an attachment) turned into a
// text notice. Chats whose channel is not running in this process are left for the process that runs it,
// and a WhatsApp chat's replies to the process holding the socket (whichever process ran the chat).
import type { Channel, ChannelState, SendOptions } from '../channels/types.js';
import type { Config } from '../config/schema.js';
import type { ChatKey, SendResult } from '../core/types.js';
import { NOT_CONNECTED, parseChatKey } from '../core/types.js';
import type { Logger } from '../log.js';
import { maskId } from '../log.js';
import { isExpiryNotice, type OutboxRow } from '../store/contract/outbox.js';
import type { Fence } from '../store/ownership.js';
import type { QueueStore } from '../store/queue-ops.js';
import { deliverItem } from './deliver-item.js';
import { persist, unwrap } from './persist.js';
import type { ChannelMap, Clock } from './ports.js';
import type { ProcessOwner } from './process-owner.js';
import { isStatusKey, STATUS_PREFIX, STATUS_TRIES } from './progress-outbox.js';
import { readyKey } from './ready-key.js';
import { cappedBackoff, decideRetry, type RetryPolicy } from './retry.js';

export interface DeliveryOptions extends RetryPolicy {
  /** How often a chat waiting for its channel to connect looks again. */
  waitMs: number;
}

/** Sending is attempted unless the channel is known not to be able to (a failure would burn a try). */
const canSend = (s: ChannelState) =>
  s.type !== 'connecting' && s.type !== 'stopped' && s.type !== 'relink_required';

/** Rows whose settling is remembered for a waiter that comes late. */
const RECENT_SETTLED = 256;

/** Sends recorded this long before an attempt may still be what a provider lookup sees after it (clock skew). */
const RESEND_LOOKBACK_MS = 10 * 60_000;

export function deliveryOptions(c: Config['delivery']): DeliveryOptions {
  return {
    retryForMs: c.retryHours * 3_600_000,
    backoffMs: cappedBackoff(c.maxRetryDelaySeconds * 1000),
    waitMs: 1000,
  };
}

export const DEFAULT_DELIVERY: DeliveryOptions = deliveryOptions({
  retryHours: 24,
  maxRetryDelaySeconds: 60,
});

/** The one line a chat gets when replies to it were given up. */
export function expiryNotice(retryForMs: number): string {
  const hours = retryForMs / 3_600_000;
  const span = hours >= 1 ? `${Math.round(hours * 10) / 10} h` : `${Math.max(1, Math.round(hours * 60))} min`;
  return `(Some replies could not be delivered: sending kept failing for ${span}. Ask again if you still need them.)`;
}

export class Deliverer {
  private readonly busy = new Map<ChatKey, Promise<void>>();
  /** Chats kicked while their drain was under way: it may have looked for the last time already. */
  private readonly again = new Set<ChatKey>();
  private readonly timers = new Set<{ timer: NodeJS.Timeout; wake: () => void; chat?: ChatKey }>();
  private stopped = false;
  /** Shutting down: send what can go now, but wait for nothing (see `finish`). */
  private finishing = false;
  private readonly stopping = new AbortController();
  /** Who waits for a row to be sent or given up (a status message's edit, progress-outbox.ts). */
  private readonly waiters = new Map<number, Set<() => void>>();
  private readonly recent: number[] = [];

  constructor(
    private readonly store: QueueStore,
    private readonly channels: ChannelMap,
    private readonly log: Logger,
    private readonly now: Clock,
    private readonly opts: DeliveryOptions = DEFAULT_DELIVERY,
    private readonly storeRetryMs = 1000,
    /** The chat leases when processes share the store: a chat is sent to under its lease only. */
    private readonly owner?: Pick<
      ProcessOwner,
      'take' | 'drop' | 'notify' | 'holds' | 'leads' | 'stillLeads' | 'holderOf'
    >,
    /** The lead whose holder sends a channel's replies (WhatsApp's socket), whoever ran the chat. */
    private readonly sendLead: (channel: string) => string | undefined = () => undefined,
  ) {}

  owns(chat: ChatKey): boolean {
    const p = parseChatKey(chat);
    return Boolean(p && this.channels.has(p.channel));
  }

  /** Starts sending a chat's unsent chunks unless under way; `heard`: told by another process (not passed on). */
  kick(chat: ChatKey, heard = false): void {
    if (this.stopped || !this.owns(chat)) return;
    if (this.busy.has(chat)) {
      // The drain may have found nothing left a moment before this row was written, and only be
      // waiting to end: it drains once more when it does, or the row would wait for a next kick.
      this.again.add(chat);
      return;
    }
    const run = this.drainChat(chat, heard)
      // Never an unhandled rejection (it would end the relay): log it; the rows stay for the next kick.
      .catch((err) => this.log.error({ err, chat: maskId(chat) }, 'sending stopped by an error'))
      .finally(() => {
        this.busy.delete(chat);
        if (this.again.delete(chat)) this.kick(chat);
      });
    this.busy.set(chat, run);
  }

  /**
   * Resolves once row `id` was sent or given up by this process, or after `timeoutMs` (another
   * process may be the one sending it, or it was settled before the call).
   */
  settled(id: number, timeoutMs: number): Promise<void> {
    if (this.recent.includes(id)) return Promise.resolve();
    return new Promise((resolve) => {
      const set = this.waiters.get(id) ?? new Set<() => void>();
      this.waiters.set(id, set);
      const done = () => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0) this.waiters.delete(id);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      timer.unref?.();
      set.add(done);
    });
  }

  private release(id: number): void {
    // Kept a while: a waiter that asks just after the row went (its drain was already under way).
    this.recent.push(id);
    if (this.recent.length > RECENT_SETTLED) this.recent.shift();
    for (const done of [...(this.waiters.get(id) ?? [])]) done();
  }

  /** Every chat with unsent chunks (at start, to resend what a previous process left). */
  async kickAll(): Promise<void> {
    for (const chat of await this.store.chatsWithUnsent()) this.kick(chat);
  }

  /** Resolves when no chat is being sent to. */
  async idle(): Promise<void> {
    while (this.busy.size > 0) await Promise.allSettled([...this.busy.values()]);
  }

  /** Ends every wait now (e.g. a channel just connected): each chat looks at its outbox again. */
  wake(): void {
    for (const t of this.timers) {
      clearTimeout(t.timer);
      t.wake();
    }
    this.timers.clear();
  }

  /**
   * Shutting down: chunks whose channel can take them now are still sent, but a chat that would
   * wait (its channel not connected, e.g. WhatsApp waiting for a relink, or a retry back-off) ends
   * instead, its chunks left in the store for the next start. Without this a reply nobody can
   * deliver made every shutdown wait its whole grace period.
   */
  finish(): void {
    this.finishing = true;
    this.wake();
  }

  /**
   * A send on `channel` just worked after failing: the provider is back, so every chat of that
   * channel in a backoff tries now instead of at the end of its wait (up to the cap).
   */
  private wakeChannel(channel: string): void {
    for (const t of this.timers) {
      if (!t.chat || parseChatKey(t.chat)?.channel !== channel) continue;
      clearTimeout(t.timer);
      this.timers.delete(t);
      t.wake();
    }
  }

  /** Stops sending: pending waits end now; unsent chunks stay in the store for the next start. */
  stop(): void {
    this.stopped = true;
    this.stopping.abort();
    this.wake();
  }

  /** For a chunk whose send began before: when, and what the provider took from us since. */
  private async resendOptions(chat: ChatKey, row: OutboxRow): Promise<SendOptions | undefined> {
    if (row.attemptAt === undefined) return undefined;
    return {
      attemptedAt: row.attemptAt,
      knownIds: await this.store.sentProviderIds(chat, row.attemptAt - RESEND_LOOKBACK_MS),
    };
  }

  private async drainChat(chat: ChatKey, heard: boolean): Promise<void> {
    const target = parseChatKey(chat);
    const channel = target && this.channels.get(target.channel);
    if (!target || !channel) return;
    if (!this.owner) return this.drainAs(chat, target, channel, undefined);
    const lead = this.sendLead(target.channel);
    if (lead) {
      // Sent by the lead's holder, not under the chat's lease (the run may be another process's).
      if (this.owner.leads(lead)) return this.drainAs(chat, target, channel, undefined, lead);
      if (!heard && (await this.store.nextUnsent(chat))) await this.owner.notify('outbox', chat);
      return;
    }
    // Nothing to send, no lease to take and give back (two store transactions): every run ends with
    // a kick that finds its reply already sent. A row written after this look kicks again.
    if (!(await this.store.nextUnsent(chat))) return;
    const lease = await this.owner.take(chat);
    // Another process holds the chat: it (and only it) sends the chat's replies; told one waits.
    if (!lease) return this.owner.notify('outbox', readyKey(chat, this.owner.holderOf(chat)));
    try {
      await this.drainAs(chat, target, channel, lease.fence);
    } finally {
      await this.owner.drop(chat, lease.fence);
    }
  }

  /** `fence`: the chat's lease; a chunk is marked sent under it, and refused once it moved. */
  private async drainAs(
    chat: ChatKey,
    target: { channel: string; chatId: string },
    channel: Channel,
    fence: Fence | undefined,
    lead?: string,
  ): Promise<void> {
    // The row whose stored next try this loop has already waited for (or just set): waited once, it
    // is tried, even when a wake cut the wait short or an injected clock does not move.
    let waited: number | undefined;
    for (
      let row = await this.store.nextUnsent(chat);
      row && !this.stopped;
      row = await this.store.nextUnsent(chat)
    ) {
      if (isStatusKey(row.key) && (await this.store.newerEditPending(row, STATUS_PREFIX))) {
        // A newer line of the same status message waits behind this one: only the newest matters.
        unwrap(await this.store.failChunk(row, 'superseded by a newer status line', this.now()));
        this.release(row.id);
        continue;
      }
      if (row.nextAt !== undefined && waited !== row.id && row.nextAt > this.now()) {
        // A backoff a previous process (or an earlier kick) began: it is kept, not restarted.
        if (this.finishing) return;
        waited = row.id;
        await this.sleep(row.nextAt - this.now(), chat);
        continue;
      }
      if (!canSend(channel.status())) {
        // Not connected yet (or waiting for a relink): wait without spending the chunk's tries.
        if (this.finishing) return;
        await this.sleep(this.opts.waitMs);
        continue;
      }
      // Noted before the call, for a channel that can ask its provider: if the relay dies while the
      // provider takes the chunk, the next start lets the channel check instead of sending blind.
      // (A store that refuses the note costs only that check, so the send goes ahead anyway.)
      if (channel.checksResends) {
        const noted = await this.store.markChunkAttempt(row.id, this.now());
        if (!noted.ok)
          this.log.warn({ err: noted.message, chat: maskId(chat) }, 'could not note the send attempt');
      }
      // Looked at just before the send: a process paused past its lease finds it moved on waking and
      // sends nothing; its successor sends the chunk. (A pause between this look and the send can
      // still send a chunk the successor sends too: a duplicate, never an answer it did not give.)
      if (fence && !(await this.owner?.holds(fence))) {
        this.log.warn({ chat: maskId(chat), key: row.key }, 'the lease of the chat moved: not sending');
        return;
      }
      if (lead && !(await this.owner?.stillLeads(lead))) {
        this.log.warn({ chat: maskId(chat), lead }, 'another process took over the channel: not sending');
        return;
      }
      let r: SendResult;
      try {
        r = await deliverItem(
          this.store,
          channel,
          chat,
          target.chatId,
          row.item,
          await this.resendOptions(chat, row),
        );
      } catch (err) {
        // A channel should return errors as values; a throw is treated as a transient failure.
        r = { ok: false, error: (err as Error).message, retryable: true };
      }
      if (r.ok) {
        // Sent: while the store refuses to note it, keep trying to note it, never send it again.
        // (Stopped before it could: the next start sends it once more; at least once, not lost.)
        const noted = await persist(() => this.store.markChunkSent(row.id, this.now(), r.providerId, fence), {
          what: 'note a sent reply',
          log: this.log,
          fields: { chat: maskId(chat), key: row.key, idx: row.idx },
          baseMs: this.storeRetryMs,
          signal: this.stopping.signal,
        });
        if (!noted.ok) return;
        this.release(row.id);
        if (row.tries > 0) this.wakeChannel(target.channel);
        continue;
      }
      if (r.code === NOT_CONNECTED) {
        // Nothing was attempted (e.g. WhatsApp degraded after a long outage, still reconnecting):
        // waiting must not spend the chunk's tries, or a reply is dropped before the reconnect.
        if (this.finishing) return;
        await this.sleep(this.opts.waitMs);
        continue;
      }
      // The provider's code is kept with the reason: it is what the owner looks up (21610, 63016…).
      const error = r.code && !r.error.includes(r.code) ? `${r.error} (code ${r.code})` : r.error;
      const now = this.now();
      const decision = decideRetry(
        {
          retryable: r.retryable,
          tries: row.tries + 1,
          createdAt: row.createdAt,
          now,
          retryAfterMs: r.retryAfterMs,
          expires: !isExpiryNotice(row.key),
          // A status line is stale within seconds: a few tries, never a day of them ahead of the answer.
          ...(isStatusKey(row.key) && { maxTries: STATUS_TRIES }),
        },
        this.opts,
      );
      switch (decision.type) {
        case 'retry': {
          const tries = unwrap(await this.store.markChunkRetry(row.id, error, now + decision.delayMs));
          this.log.warn(
            { chat: maskId(chat), key: row.key, idx: row.idx, tries, error, retryInMs: decision.delayMs },
            'send failed; will retry',
          );
          if (this.finishing) return;
          waited = row.id;
          await this.sleep(decision.delayMs, chat);
          continue;
        }
        case 'expire':
          await this.expire(chat, row, error, now);
          this.release(row.id);
          continue;
        case 'fail':
          await this.giveUp(chat, row, error);
          this.release(row.id);
          continue;
      }
    }
  }

  /** Transient failures outlasted the retry time: the chunk is given up, and the chat told once. */
  private async expire(chat: ChatKey, row: OutboxRow, error: string, now: number): Promise<void> {
    const noticed = unwrap(await this.store.expireChunk(row, error, now, expiryNotice(this.opts.retryForMs)));
    this.log.error(
      { chat: maskId(chat), key: row.key, idx: row.idx, type: row.item.type, error, noticed },
      'send given up: failures outlasted the retry time',
    );
  }

  private async giveUp(chat: ChatKey, row: OutboxRow, error: string): Promise<void> {
    // An attachment that could not go out is announced in text; a failed text chunk cannot be.
    // An edit or a reaction that could not be made is logged only: the message it meant to change is there.
    const what = row.item.type === 'file' ? row.item.fileName : 'a link';
    const notice =
      row.item.type === 'file' || row.item.type === 'url'
        ? `(Could not send the attachment ${what}: ${error.slice(0, 160)})`
        : undefined;
    unwrap(await this.store.failChunk(row, error, this.now(), notice));
    this.log.error(
      { chat: maskId(chat), key: row.key, idx: row.idx, type: row.item.type, error },
      'send failed permanently',
    );
  }

  /** A wait that `wake()` (and, with `chat`, a recovery on its channel) ends early. */
  private sleep(ms: number, chat?: ChatKey): Promise<void> {
    // None once stopped: a loop awaiting the store at `stop()` would begin a whole back-off after it.
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const entry = {
        // setTimeout fires at once for a delay past 2^31 - 1 ms (about 24.8 days, a hostile Retry-After).
        timer: setTimeout(
          () => {
            this.timers.delete(entry);
            resolve();
          },
          Math.min(ms, 2 ** 31 - 1),
        ),
        wake: resolve,
        chat,
      };
      this.timers.add(entry);
    });
  }
}
