// A webhook whose message the store refused (a full disk, an I/O error, a lock held too long) must not
// be lost. Twilio retries a webhook by default only when it cannot connect (retry policy `ct`), so the
// old answer, a 500, dropped the message for good. Now: the message is held in memory and stored again
// with backoff before answering, within Twilio's 15 s; if the store still refuses, the answer is a 503,
// which Twilio retries when the webhook URL carries the connection override `#rc=3&rp=all` (docs/twilio.md
// "When the store refuses a message"). If no retry stored it once Twilio's retries are over, the sender
// is told by REST that the message was not taken. Bounded: at most `maxHeld` messages wait at once;
// beyond that the 503 comes at once.
import type { Logger } from '../../log.js';
import { maskId } from '../../log.js';
import type { InboundDecision } from './inbound.js';

export interface StoreRetryOptions {
  /** Waits before each further try; their sum stays well under Twilio's 15 s per attempt. */
  delaysMs: readonly number[];
  /** Messages held at once; beyond this a refused message is answered at once. */
  maxHeld: number;
  /** After this, Twilio has stopped retrying (its total time is at most 15 s): the sender is told. */
  noticeAfterMs: number;
}

export const STORE_RETRY: StoreRetryOptions = {
  delaysMs: [100, 200, 400, 800, 1500],
  maxHeld: 100,
  noticeAfterMs: 20_000,
};

export const NOT_TAKEN_NOTICE =
  'Your message could not be saved, so the agent did not get it. Please send it again in a minute.';

export interface StoreRetry {
  /** Tries `attempt` until it is not `failed`, while the message may be held; notes the outcome. */
  run(chatId: string, sid: string, attempt: () => Promise<InboundDecision>): Promise<InboundDecision>;
  /** Number of messages held right now. */
  held(): number;
  /** Sends the notices still waiting (the relay stops: Twilio's retries will not reach it). */
  stop(): void;
}

export function createStoreRetry(
  opts: StoreRetryOptions,
  notify: (chatId: string, text: string) => void,
  log: Logger,
): StoreRetry {
  let held = 0;
  let stopped = false;
  // Waits end at once when the channel stops: nothing holds the relay's shutdown.
  const wakers = new Set<() => void>();
  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      wakers.add(done);
    });
  // Per chat: the MessageSids refused so far and not stored by a later retry, and the notice timer.
  // One notice per chat, however many of its messages were refused in a burst.
  const waiting = new Map<string, { sids: Set<string>; timer: NodeJS.Timeout }>();

  const tell = (chatId: string) => {
    const w = waiting.get(chatId);
    waiting.delete(chatId);
    if (!w || w.sids.size === 0) return;
    clearTimeout(w.timer);
    log.error({ chat: maskId(chatId), messages: w.sids.size }, 'twilio: message never stored; sender told');
    notify(chatId, NOT_TAKEN_NOTICE);
  };
  const refused = (chatId: string, sid: string) => {
    if (stopped) {
      // Stopping: no retry of Twilio's will reach this process, so the sender is told now.
      log.error({ chat: maskId(chatId) }, 'twilio: message never stored; sender told');
      notify(chatId, NOT_TAKEN_NOTICE);
      return;
    }
    const w = waiting.get(chatId);
    if (w) {
      w.sids.add(sid);
      w.timer.refresh();
      return;
    }
    const timer = setTimeout(() => tell(chatId), opts.noticeAfterMs);
    timer.unref();
    waiting.set(chatId, { sids: new Set([sid]), timer });
  };
  const taken = (chatId: string, sid: string) => {
    const w = waiting.get(chatId);
    if (!w) return;
    w.sids.delete(sid);
    if (w.sids.size === 0) {
      clearTimeout(w.timer);
      waiting.delete(chatId);
    }
  };

  return {
    held: () => held,
    async run(chatId, sid, attempt) {
      let out = await attempt();
      if (out.type === 'failed' && held < opts.maxHeld) {
        held++;
        try {
          for (const ms of opts.delaysMs) {
            await wait(ms);
            if (stopped) break;
            out = await attempt();
            if (out.type !== 'failed') break;
          }
        } finally {
          held--;
        }
      }
      if (out.type === 'failed') refused(chatId, sid);
      else taken(chatId, sid);
      return out;
    },
    stop() {
      stopped = true;
      for (const wake of [...wakers]) wake();
      for (const chatId of [...waiting.keys()]) tell(chatId);
    },
  };
}
