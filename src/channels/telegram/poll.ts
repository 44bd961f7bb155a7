// Long polling: getUpdates from the persisted offset, each update handled in order, and the offset
// moved past it only once it is handled, so a restart reads nothing twice and loses nothing. Network
// errors and Telegram's 5xx/429 wait and try again; a 401 (bad token) or a 409 (a webhook is set, or
// another poller runs) is reported through `onError` and retried slowly.
import { GrammyError } from 'grammy';
import type { Update } from 'grammy/types';
import { type BotApi, grammySignal } from './api.js';
import type { TelegramState } from './state.js';

export interface PollDeps {
  api: BotApi;
  state: TelegramState;
  handle: (update: Update) => Promise<void>;
  onError: (err: unknown, retries: number) => void;
  onOk: () => void;
  onHandleError: (err: unknown) => void;
  timeoutSeconds?: number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

// callback_query: taps on the buttons of the bot's cards (send_card).
export const ALLOWED_UPDATES = ['message', 'callback_query'] as const;

/** Resolves after `ms`, or at once when `signal` aborts. */
export const abortableSleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    });
  });

export class Poller {
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;

  constructor(private readonly deps: PollDeps) {}

  start(): void {
    this.loop ??= this.run();
  }

  /** Ends the poll in flight; the update being handled finishes first. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop;
  }

  private async run(): Promise<void> {
    const { deps } = this;
    const signal = this.abort.signal;
    const sleep = deps.sleep ?? abortableSleep;
    let offset = await deps.state.offset();
    let failures = 0;
    while (!signal.aborted) {
      let updates: Update[];
      try {
        updates = await deps.api.getUpdates(
          { offset, timeout: deps.timeoutSeconds ?? 30, allowed_updates: [...ALLOWED_UPDATES] },
          grammySignal(signal),
        );
      } catch (err) {
        if (signal.aborted) break;
        failures++;
        deps.onError(err, failures);
        await sleep(retryDelay(err, failures), signal);
        continue;
      }
      if (failures) failures = 0;
      deps.onOk();
      for (const u of updates) {
        // An update below the offset was handled before (a server that repeats itself).
        if (u.update_id < offset) continue;
        try {
          await deps.handle(u);
        } catch (err) {
          // An update that breaks the pipeline must not stop the bot or come back forever: it is
          // reported and passed over (the pipeline itself tells a sender when their message was lost).
          deps.onHandleError(err);
        }
        offset = u.update_id + 1;
        // Kept in memory whatever happens; a store that cannot take it now costs at most a re-read
        // after a restart, which the inbox's dedupe absorbs.
        await deps.state.setOffset(offset).catch((err: unknown) => deps.onHandleError(err));
      }
    }
  }
}

/** How long to wait after a failed poll: Telegram's retry_after, else 1 s doubling to 60 s. */
export function retryDelay(err: unknown, failures: number): number {
  if (err instanceof GrammyError && typeof err.parameters?.retry_after === 'number') {
    return err.parameters.retry_after * 1000;
  }
  return Math.min(60_000, 1000 * 2 ** Math.min(6, failures - 1));
}
