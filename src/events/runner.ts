// Runs stored events: each in its chat's run slot through the queue's SystemRunner (the path heartbeats
// and schedules take), so an event waits for the chat's own messages, takes a place under the global
// run limit, and goes out through the outbox once. The begin is saved before the agent starts: a
// relay killed during the run tries it once more at start (the same run key, so its tool messages
// and reply are sent once), and a second cut-off gives it up. An event whose agent this process has
// asked is never started again by this process, whatever its row says after (left begun by a lost
// lease, a stop, a write that failed): a row left so is for the next start, or the next process to
// run events, as after a kill.

import type { AgentKind } from '../agents/types.js';
import type { ActiveHours } from '../core/hours.js';
import { isWithinActiveHours } from '../core/hours.js';
import { nextTurn } from '../core/next-turn.js';
import type { ChatKey, SystemRunner } from '../core/types.js';
import type { Clock, Timer } from '../heartbeat/clock.js';
import { runOptions } from '../heartbeat/settings.js';
import { decideDelivery } from '../heartbeat/token.js';
import type { Logger } from '../log.js';
import { StoreError } from '../store/errors.js';
import type { EventStore, StoredEvent } from '../store/events.js';
import { eventOptions, MAX_EVENT_ATTEMPTS, planEvents } from './plan.js';

/** How long a busy chat is left before its next event is tried again. */
export const BUSY_RETRY_MS = 1000;
/** The first and the longest wait between tries of a write after the run, while the store is away. */
const HOLD_FIRST_MS = 500;
const HOLD_MAX_MS = 30_000;
/** The longest sleep: a wall clock that jumps, or active hours that open, are noticed this soon. */
const MAX_SLEEP_MS = 60_000;
/** Finished events (and the keys that stop a replay) are kept this long. */
export const KEEP_DONE_MS = 7 * 24 * 3600_000;
/** A chat's next events read at once (more than one: some may wait for active hours). */
const NEXT_BATCH = 20;

export interface EventRunnerDeps {
  store: EventStore;
  runner: SystemRunner;
  clock: Clock;
  log: Logger;
  activeHours?: ActiveHours;
  busyRetryMs?: number;
}

export type EventOutcome =
  | 'sent'
  | 'silent'
  | 'failed'
  | 'stopped'
  | 'gave_up'
  | 'busy'
  | 'cut_off'
  /** The chat's lease moved to another process while the agent ran: left begun, nothing sent. */
  | 'moved'
  /** Begun or finished by another look since it was read: not this one's to run. */
  | 'skipped';

export class EventRunner {
  private readonly working = new Map<string, Promise<void>>();
  /** Events whose agent this process asked and whose row was not seen done since: not run again here. */
  private readonly askedHere = new Set<number>();
  private stopped = true;
  private timer: Timer | undefined;
  private pumping = false;
  private again = false;

  constructor(private readonly d: EventRunnerDeps) {}

  start(): void {
    this.stopped = false;
    void this.d.store
      .prune(this.d.clock.now() - KEEP_DONE_MS)
      .catch((err: unknown) => this.d.log.warn({ err }, 'events: could not prune old events'));
    this.kick();
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
  }

  async whenIdle(): Promise<void> {
    while (this.working.size > 0 || this.pumping) await Promise.all([...this.working.values(), nextTurn()]);
  }

  /** Something was stored or a run ended: look again now. */
  kick(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    void this.pump()
      .catch((err: unknown) => this.d.log.error({ err }, 'events: could not read the stored events'))
      .finally(() => {
        this.pumping = false;
      });
  }

  private async pump(): Promise<void> {
    do {
      this.again = false;
      if (this.stopped) return;
      const now = this.d.clock.now();
      let wakeAt: number | undefined;
      try {
        // The chats at work when the read starts count as busy too: a drain that ends while the
        // read is on its way may have finished an event the read still shows open.
        const busy = new Set(this.working.keys());
        const open = await this.d.store.open();
        for (const chat of this.working.keys()) busy.add(chat);
        // A finished row is never open again: its id need not be remembered any longer.
        const seen = new Set(open.map((e) => e.id));
        for (const id of this.askedHere) if (!seen.has(id)) this.askedHere.delete(id);
        const plan = planEvents(this.notAskedHere(open), now, busy, this.inHours(now));
        for (const e of plan.start) this.launch(e);
        wakeAt = plan.wakeAt;
      } finally {
        // Also after a failed read: the next look comes at the latest a minute later.
        this.arm(wakeAt);
      }
    } while (this.again);
  }

  private arm(wakeAt: number | undefined): void {
    this.timer?.cancel();
    const now = this.d.clock.now();
    const delay = Math.min(MAX_SLEEP_MS, wakeAt === undefined ? MAX_SLEEP_MS : Math.max(0, wakeAt - now));
    this.timer = this.d.clock.setTimer(() => this.kick(), delay);
  }

  private launch(e: StoredEvent): void {
    const work = this.drain(e)
      .catch((err: unknown) => this.d.log.error({ event: e.id, err }, 'events: run threw'))
      .finally(() => {
        this.working.delete(e.chat);
        this.kick();
      });
    this.working.set(e.chat, work);
  }

  /**
   * Runs the chat's events one after another, asking the store only for that chat's next ones, so
   * a backlog of a thousand costs a thousand small reads, not a thousand reads of everything.
   */
  private async drain(first: StoredEvent): Promise<void> {
    let e: StoredEvent | undefined = first;
    while (e && !this.stopped) {
      const outcome = await this.runOne(e);
      if (outcome === 'cut_off') return;
      if (outcome === 'busy') await this.pause(this.d.busyRetryMs ?? BUSY_RETRY_MS);
      const now = this.d.clock.now();
      const inHours = this.inHours(now);
      e = this.notAskedHere(await this.d.store.dueFor(first.chat, now, NEXT_BATCH)).find(
        (x) => !eventOptions(x).activeHours || inHours,
      );
    }
  }

  private notAskedHere(events: StoredEvent[]): StoredEvent[] {
    return events.filter((e) => !this.askedHere.has(e.id));
  }

  private inHours(now: number): boolean {
    return this.d.activeHours ? isWithinActiveHours(now, this.d.activeHours) : true;
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => this.d.clock.setTimer(resolve, ms));
  }

  /** One event, start to finish; its outcome is saved unless the chat was busy or the relay stopping. */
  async runOne(e: StoredEvent): Promise<EventOutcome> {
    const { store, runner, log, clock } = this.d;
    const chat = e.chat as ChatKey;
    // Claimed first, against the row as it was read: a read older than another look's begin or
    // finish runs nothing (and gives nothing up).
    const begun = await store.begin(e.id, e);
    if (!begun) {
      log.debug({ event: e.id }, 'events: begun or finished since it was read; left to that look');
      return 'skipped';
    }
    if (e.state === 'running' && e.attempts >= MAX_EVENT_ATTEMPTS) {
      log.warn({ event: e.id, source: e.source }, 'events: cut off twice by a stop; given up');
      await store.finish(e.id, 'gave_up', clock.now());
      await runner.deliver(
        chat,
        `event:${e.id}:gave_up`,
        `An event (${e.source}) was not run: agentwire stopped twice while running it, so it was given up.`,
        [],
      );
      return 'gave_up';
    }
    if (e.state === 'running')
      log.warn({ event: e.id }, 'events: run was cut off by a stop; trying once more');
    const o = eventOptions(e);
    const r = await runner.runIfIdle(chat, e.prompt, {
      allowNewSession: true,
      // A quiet event is a check-in: like the heartbeat it does not keep the session awake.
      touchIdle: !o.quiet,
      label: 'event',
      runKey: `event:${e.id}`,
      ...runOptions(
        {
          session: o.session ?? 'chat',
          ...(o.agent !== undefined && { agent: o.agent as AgentKind }),
        },
        `event:${e.source}`,
      ),
    });
    if (r.type !== 'busy') this.askedHere.add(e.id);
    switch (r.type) {
      case 'busy':
        await store.release(e.id, begun.attempts);
        return 'busy';
      case 'no_session':
        return this.fail(e, 'there is no agent session in this chat');
      case 'moved':
        // This process lost the chat: its answer is not sent from here, and the event is not run
        // here again. Left begun, like a run cut off by a kill: the next start (or the next process
        // to run events) tries it once more, and a second cut-off gives it up.
        log.warn(
          { event: e.id, source: e.source },
          'events: the chat moved to another process mid-run; left begun',
        );
        return 'moved';
      case 'ran':
        break;
    }
    if (r.result.type === 'error' && r.result.kind === 'aborted') {
      if (this.stopped) {
        // Left as begun: the next start runs it again.
        log.info({ event: e.id }, 'events: run cut off by shutdown');
        return 'cut_off';
      }
      await this.held(e, () => store.finish(e.id, 'stopped', clock.now()));
      return 'stopped';
    }
    if (r.result.type === 'error') return this.fail(e, r.result.message);
    const text = r.result.text;
    const delivery = o.quiet ? decideDelivery(text, r.result.media) : plain(text, r.result.media);
    if (delivery.type === 'nothing') {
      await this.held(e, () => store.finish(e.id, 'silent', clock.now()));
      log.info({ event: e.id, source: e.source }, 'events: agent had nothing to send');
      return 'silent';
    }
    await this.held(e, () => runner.deliver(chat, `event:${e.id}`, delivery.text, delivery.media));
    await this.held(e, () => store.finish(e.id, 'sent', clock.now()));
    log.info({ event: e.id, source: e.source, chars: delivery.text.length }, 'events: reply sent');
    return 'sent';
  }

  private async fail(e: StoredEvent, message: string): Promise<EventOutcome> {
    const { store, runner, log, clock } = this.d;
    log.warn({ event: e.id, source: e.source }, 'events: run failed');
    await this.held(e, () => store.finish(e.id, 'failed', clock.now()));
    await this.held(e, () =>
      runner.deliver(
        e.chat as ChatKey,
        `event:${e.id}:failed`,
        `An event (${e.source}) failed: ${message.replace(/[.\s]+$/, '')}.`,
        [],
      ),
    );
    return 'failed';
  }

  /**
   * A write after the agent ran, tried again while the store is away for a reason that passes (the
   * database down a moment, a lock held too long): the answer is held until it is stored, as a user
   * run's is, instead of the event being left begun and its agent asked again. Given up only by a
   * stop (the event stays begun: the next start runs it once more) or a failure that would repeat.
   */
  private async held(e: StoredEvent, write: () => Promise<unknown>): Promise<void> {
    for (let wait = HOLD_FIRST_MS; ; wait = Math.min(2 * wait, HOLD_MAX_MS)) {
      try {
        await write();
        return;
      } catch (err) {
        if (this.stopped || !(err instanceof StoreError) || !err.retryable) throw err;
        this.d.log.warn(
          { event: e.id, reason: err.reason, retryInMs: wait },
          'events: the store is away; the answer waits for it',
        );
        await this.pause(wait);
      }
    }
  }
}

function plain(
  text: string,
  media: readonly string[],
): { type: 'nothing' } | { type: 'deliver'; text: string; media: string[] } {
  if (text.trim() === '' && media.length === 0) return { type: 'nothing' };
  return { type: 'deliver', text, media: [...media] };
}
