// One configured schedule. Differences from the heartbeat, on purpose:
// - A schedule may start a new session (allowNewSession: true) and counts as activity in it
//   (touchIdle: true). It is the owner's own job with its own prompt ("send me the day's plan"),
//   so it must work after the session expired overnight, and the owner may answer its message.
// - A busy chat does not drop the occurrence: it is retried every minute until it runs or the
//   next occurrence comes (a daily plan is not lost because the owner was chatting at 08:00).
// - The optional pre-check gates the agent; its output joins the prompt.
// State is saved before the agent runs (next occurrence, run begun), so a restart neither fires a
// recurring occurrence twice nor loses a one-shot (see plan.ts).

import type { JobState } from '../core/job-state.js';
import { fingerprint } from '../core/timing.js';
import { maskId } from '../log.js';
import { checkGate } from './check.js';
import { type Job, type JobDeps, loadOrFresh, persist } from './jobs.js';
import { dueDecision, isLate, nextAfter, planAtStart } from './plan.js';
import { type FailureReason, failureText, lateNote, schedulePrompt } from './prompt.js';
import { runOptions, type ScheduleSpec } from './settings.js';
import { scheduleJob } from './state.js';
import { decideDelivery } from './token.js';

export const BUSY_RETRY_MS = 60_000;

type Outcome =
  | 'sent'
  | 'silent'
  | 'check_quiet'
  | 'missed'
  | 'busy_retry'
  | 'busy_dropped'
  | 'failed'
  | 'stopped'
  | 'gave_up';

/** The occurrence being worked on across busy retries (the check output is kept, not re-run). */
interface Pending {
  occurrence: number;
  lateMs: number;
  checkOutput?: string;
  retry?: boolean;
}

export class ScheduleJob implements Job {
  readonly name: string;
  private state: JobState;
  private occurrence: number | undefined;
  private retryAt: number | undefined;
  private pending: Pending | undefined;
  /** A one-shot found cut off twice at start: reported on the first wake, then never run again. */
  private pendingGiveUp = false;
  /** The one-shot's first try was cut off by a stop: this is the second. */
  private secondTry = false;

  constructor(
    private readonly d: JobDeps,
    readonly spec: ScheduleSpec,
  ) {
    this.name = scheduleJob(spec.id);
    this.state = loadOrFresh(d, this.name, fingerprint(spec.fields));
    const now = d.clock.now();
    const plan = planAtStart(spec.timing, this.state, now);
    this.occurrence = plan.type === 'next' ? plan.occurrence : undefined;
    if (plan.type === 'next' && plan.skippedEarlier)
      d.log.info({ schedule: spec.id }, 'schedule: older runs missed while stopped are not caught up');
    this.secondTry = plan.type === 'next' && plan.retry;
    if (this.secondTry)
      d.log.warn({ schedule: spec.id }, 'schedule: one-shot run was cut off by a stop; trying once more');
    if (spec.timing.type !== 'at') this.state.nextRunAt = this.occurrence;
    persist(d, this.name, this.state);
    this.pendingGiveUp = plan.type === 'idle' && plan.reason === 'gave_up';
  }

  wakeAt(): number | undefined {
    if (this.pendingGiveUp) return this.d.clock.now();
    return this.retryAt ?? this.occurrence;
  }

  get snapshot(): { state: JobState; occurrence?: number; retryAt?: number } {
    return { state: { ...this.state }, occurrence: this.occurrence, retryAt: this.retryAt };
  }

  async fire(now: number): Promise<void> {
    if (this.pendingGiveUp) {
      this.pendingGiveUp = false;
      this.state.runningSince = undefined;
      this.state.done = true;
      await this.fail(this.spec.timing.type === 'at' ? this.spec.timing.atMs : now, { type: 'gave_up' });
      return this.finish('gave_up');
    }
    if (this.pending === undefined) {
      const occ = this.occurrence;
      if (occ === undefined) return;
      const due = dueDecision(this.spec.timing, occ, now);
      this.occurrence = nextAfter(this.spec.timing, occ, now);
      this.state.nextRunAt = this.occurrence;
      if (due.type === 'skip_missed') {
        this.d.log.info(
          { schedule: this.spec.id, dueAt: occ, missedByMs: due.missedByMs },
          'schedule missed',
        );
        return this.finish('missed');
      }
      this.pending = { occurrence: occ, lateMs: due.lateMs, retry: this.secondTry };
    }
    this.retryAt = undefined;
    const p = this.pending;
    // Saved before anything runs: a restart from here on knows the run began.
    this.state.lastRunAt = now;
    this.state.runningSince = now;
    this.state.attempts++;
    persist(this.d, this.name, this.state);
    try {
      await this.run(p);
    } catch (err) {
      this.d.log.error({ schedule: this.spec.id, err }, 'schedule run threw');
      await this.fail(p.occurrence, { type: 'agent', message: 'the relay could not run it' });
      this.finish('failed');
    }
  }

  private async run(p: Pending): Promise<void> {
    const { spec, d } = this;
    const late = isLate(p.lateMs);
    if (late)
      d.log.warn(
        { schedule: spec.id, dueAt: p.occurrence, lateMs: p.lateMs },
        lateNote({ ...p, id: spec.id, timeZone: spec.fields.timeZone }),
      );
    if (spec.check && p.checkOutput === undefined) {
      const gate = checkGate(await d.runCheck(spec.check, spec.checkTimeoutMs));
      if (gate.type === 'quiet') {
        d.log.info(
          { schedule: spec.id, reason: gate.reason, exitCode: gate.exitCode },
          'schedule check: nothing to do',
        );
        return this.finish('check_quiet');
      }
      if (gate.type === 'error') {
        await this.fail(p.occurrence, gate.reason);
        return this.finish('failed');
      }
      p.checkOutput = gate.output;
    }
    const prompt = schedulePrompt({ ...spec, ...p, late, timeZone: spec.fields.timeZone });
    const r = await d.runner.runIfIdle(spec.target, prompt, {
      allowNewSession: true,
      touchIdle: true,
      label: `schedule:${spec.id}`,
      // The occurrence names the run: a redo after a restart sends its tool messages once.
      runKey: `schedule:${spec.id}:${p.occurrence}`,
      ...runOptions(spec.run, this.name),
    });
    switch (r.type) {
      case 'busy':
        return this.busy();
      case 'no_session':
        await this.fail(p.occurrence, { type: 'no_session' });
        return this.finish('failed');
      case 'moved':
        // This process lost the chat mid-run: as after a kill, left as begun for the next start.
        d.log.warn({ schedule: spec.id }, 'schedule: the chat moved to another process mid-run; left begun');
        this.pending = undefined;
        return;
      case 'ran':
        break;
    }
    if (r.result.type === 'error' && r.result.kind === 'aborted') return this.aborted();
    if (r.result.type === 'error') {
      await this.fail(p.occurrence, { type: 'agent', message: r.result.message });
      return this.finish('failed');
    }
    const delivery = decideDelivery(r.result.text, r.result.media);
    if (delivery.type === 'nothing') {
      d.log.info({ schedule: spec.id }, 'schedule: agent had nothing to send');
      return this.finish('silent');
    }
    await d.runner.deliver(spec.target, `${this.name}:${p.occurrence}`, delivery.text, delivery.media);
    d.log.info(
      { schedule: spec.id, chat: maskId(spec.target), chars: delivery.text.length },
      'schedule reply sent',
    );
    this.finish('sent');
  }

  /**
   * The run was killed: by the relay shutting down (then it is left as begun, so a one-shot is
   * tried again at start), or by /stop in the chat (the owner's choice: recorded, not reported).
   */
  private aborted(): void {
    if (this.d.stopping?.()) {
      this.d.log.info({ schedule: this.spec.id }, 'schedule run cut off by shutdown');
      this.pending = undefined;
      return;
    }
    this.d.log.info({ schedule: this.spec.id }, 'schedule run stopped in the chat');
    this.finish('stopped');
  }

  /** Busy chat: retry in a minute, unless the next occurrence would come first (then it takes over). */
  private busy(): void {
    const retry = this.d.clock.now() + BUSY_RETRY_MS;
    if (this.occurrence !== undefined && retry >= this.occurrence) {
      this.d.log.info({ schedule: this.spec.id }, 'schedule: chat busy until the next occurrence; dropped');
      this.finish('busy_dropped');
      return;
    }
    this.d.log.info({ schedule: this.spec.id, retryInMs: BUSY_RETRY_MS }, 'schedule: chat busy; will retry');
    this.retryAt = retry;
    this.state.runningSince = undefined;
    this.state.attempts = 0;
    this.state.lastOutcome = 'busy_retry';
    persist(this.d, this.name, this.state);
  }

  /** Only the first failure of a streak is told to the chat; later ones are logged and recorded. */
  private async fail(occurrence: number, reason: FailureReason): Promise<void> {
    const text = failureText(`Scheduled job "${this.spec.id}"`, reason, this.spec.timing.type !== 'at');
    this.state.lastDetail = text;
    this.d.log.warn(
      { schedule: this.spec.id, reason: reason.type, streak: this.state.failureStreak + 1 },
      text,
    );
    if (this.state.failureStreak++ > 0) return;
    try {
      await this.d.runner.deliver(this.spec.target, `${this.name}:${occurrence}:failed`, text, []);
    } catch (err) {
      this.d.log.error({ schedule: this.spec.id, err }, 'could not report the schedule failure');
    }
  }

  private finish(outcome: Outcome): void {
    const s = this.state;
    this.pending = undefined;
    this.retryAt = undefined;
    s.lastOutcome = outcome;
    if (outcome !== 'failed' && outcome !== 'gave_up') s.lastDetail = undefined;
    if (outcome === 'sent' || outcome === 'silent' || outcome === 'check_quiet') s.failureStreak = 0;
    s.runningSince = undefined;
    s.attempts = 0;
    if (this.spec.timing.type === 'at') {
      s.done = true;
      this.occurrence = undefined;
    } else if (this.occurrence !== undefined && this.occurrence <= this.d.clock.now()) {
      // The run outlasted the next occurrence: that one is skipped rather than fired late.
      this.d.log.info({ schedule: this.spec.id }, 'schedule: run overlapped the next occurrence; skipped');
      this.occurrence = nextAfter(this.spec.timing, this.occurrence, this.d.clock.now());
    }
    s.nextRunAt = this.spec.timing.type === 'at' ? undefined : this.occurrence;
    persist(this.d, this.name, s);
  }
}
