// The heartbeat: every N minutes, ask the agent in the owner's chat whether anything needs them.
// Invariants (each has a test):
// - It runs in the chat's own run slot through the SystemRunner and never queues: a busy chat skips the
//   tick (logged), so a slow agent never builds a backlog of heartbeats. At most one is in flight.
// - It never starts a session (allowNewSession: false): a check-in into an empty context would
//   have nothing to check and would cost a cold start; and it leaves the idle clock alone
//   (touchIdle: false), so heartbeats never keep a session alive that the owner has left.
// - It only speaks to the configured chat or the self-chat, never a group, never "whoever wrote last".
// - With a pre-check (heartbeat.check), the agent wakes only when the check exits 0 and prints;
//   its output follows the prompt. With `session: 'own'` or `'fresh'` it runs outside the chat's
//   session (and may start one there), so check-ins never grow the conversation's context.

import { isWithinActiveHours } from '../core/hours.js';
import type { JobState } from '../core/job-state.js';
import type { Timing } from '../core/timing.js';
import type { ChatKey } from '../core/types.js';
import { maskId } from '../log.js';
import { checkGate } from './check.js';
import { type Job, type JobDeps, loadOrFresh, persist } from './jobs.js';
import { dueDecision, nextAfter, planAtStart } from './plan.js';
import { type FailureReason, failureText, heartbeatPrompt, MAX_CHECK_OUTPUT_CHARS } from './prompt.js';
import { type HeartbeatSettings, runOptions } from './settings.js';
import { HEARTBEAT_JOB } from './state.js';
import { checkHeartbeatTarget, type TargetProblem } from './target.js';
import { decideDelivery } from './token.js';

export type HeartbeatOutcome =
  | { type: 'sent'; chat: ChatKey; text: string; media: string[] }
  /** --dry-run: what would have been sent; nothing was. */
  | { type: 'would_send'; chat: ChatKey; text: string; media: string[] }
  /** The agent answered HEARTBEAT_OK (or nothing): nothing sent. */
  | { type: 'silent'; chat: ChatKey }
  /** The pre-check found nothing to do (exit non-zero, or no output): the agent was not woken. */
  | { type: 'check_quiet'; chat: ChatKey }
  | { type: 'skipped'; reason: SkipReason; chat?: ChatKey }
  | { type: 'refused'; reason: TargetProblem; message: string }
  | { type: 'failed'; chat: ChatKey; message: string; reported: boolean };

export type SkipReason =
  | 'off'
  | 'in_flight'
  | 'outside_active_hours'
  | 'no_target'
  | 'busy'
  | 'no_session'
  | 'stopped'
  /** The chat's lease moved to another process while the agent ran: nothing of it is sent from here. */
  | 'moved';

export interface FireOptions {
  /** A chat key instead of the configured target (still never a group). */
  to?: string;
  dryRun?: boolean;
}

type On = Extract<HeartbeatSettings, { type: 'on' }>;

export class HeartbeatJob implements Job {
  readonly name = HEARTBEAT_JOB;
  private readonly timing: Timing;
  private state: JobState;
  private occurrence: number | undefined;
  private inFlight = false;
  private lastSkip: SkipReason | undefined;
  /**
   * What the pre-check printed for a tick that then could not run (the chat was busy): handed to
   * the next run with what the check prints then. A check that reports each piece of news once
   * (remembering what it printed, like the CI example in docs/heartbeat.md) would otherwise lose it.
   * Kept in memory only: a restart drops it.
   */
  private carried: string | undefined;

  constructor(
    private readonly d: JobDeps,
    private readonly s: On,
    private readonly defaultTarget: () => ChatKey | undefined,
    /** Only for `fireNow` (heartbeat.everyMinutes is 0): no ticks planned, no state written. */
    manualOnly = false,
  ) {
    this.timing = { type: 'every', ms: s.everyMs, text: `${s.everyMs / 60_000}m` };
    this.state = loadOrFresh(d, HEARTBEAT_JOB, `every:${s.everyMs}`);
    if (manualOnly) return;
    const plan = planAtStart(this.timing, this.state, d.clock.now());
    this.occurrence = plan.type === 'next' ? plan.occurrence : undefined;
    // Said once here, as for schedules: the check-ins a stopped relay (or no leader) missed before
    // the latest are not made up.
    if (plan.type === 'next' && plan.skippedEarlier)
      d.log.info('heartbeat: older check-ins missed while stopped are not caught up');
    this.state.nextRunAt = this.occurrence;
    persist(d, HEARTBEAT_JOB, this.state);
  }

  wakeAt(): number | undefined {
    return this.occurrence;
  }

  get snapshot(): { state: JobState; settings: On } {
    return { state: { ...this.state }, settings: this.s };
  }

  async fire(now: number): Promise<void> {
    const occ = this.occurrence;
    if (occ === undefined) return;
    this.occurrence = nextAfter(this.timing, occ, now);
    this.state.nextRunAt = this.occurrence;
    const due = dueDecision(this.timing, occ, now);
    let outcome: HeartbeatOutcome | { type: 'missed' };
    if (due.type === 'skip_missed') {
      this.d.log.info(
        { dueAt: occ, missedByMs: due.missedByMs },
        'heartbeat missed while stopped; not caught up',
      );
      outcome = { type: 'missed' };
    } else {
      outcome = await this.beat({ key: `heartbeat:${occ}`, respectHours: true, report: true });
    }
    const after = this.d.clock.now();
    if (this.occurrence !== undefined && this.occurrence <= after) {
      // The run outlasted the interval: the ticks it covered are skipped, not fired back to back.
      this.d.log.info({ reason: 'in_flight' }, 'heartbeat skipped');
      this.occurrence = nextAfter(this.timing, this.occurrence, after);
      this.state.nextRunAt = this.occurrence;
    }
    this.record(now, outcome);
  }

  /** `agentwire heartbeat`: one heartbeat now, outside active hours too; failures are returned, not reported. */
  fireNow(o: FireOptions): Promise<HeartbeatOutcome> {
    return this.beat({
      key: `heartbeat:manual:${this.d.clock.now()}`,
      respectHours: false,
      report: false,
      ...o,
    });
  }

  private async beat(o: {
    key: string;
    respectHours: boolean;
    report: boolean;
    to?: string;
    dryRun?: boolean;
  }): Promise<HeartbeatOutcome> {
    const log = this.d.log;
    if (this.inFlight) return this.skip('in_flight');
    const hours = this.s.activeHours;
    if (o.respectHours && hours && !isWithinActiveHours(this.d.clock.now(), hours))
      return this.skip('outside_active_hours');
    const raw = o.to ?? this.s.target ?? this.defaultTarget();
    if (raw === undefined) return this.skip('no_target');
    const target = checkHeartbeatTarget(raw);
    if (!target.ok) {
      // The message may quote the target (a phone number): only the reason goes to the log.
      log.warn({ reason: target.reason }, 'heartbeat refused: not a chat it may speak to');
      return { type: 'refused', reason: target.reason, message: target.message };
    }
    const chat = target.chat;
    this.lastSkip = undefined;
    this.inFlight = true;
    try {
      let checkOutput: string | undefined;
      if (this.s.check) {
        const gate = checkGate(await this.d.runCheck(this.s.check, this.s.checkTimeoutMs));
        if (gate.type === 'error') return await this.fail(chat, checkFailure(gate.reason), o);
        const fresh = gate.type === 'wake' ? gate.output.trimEnd() : undefined;
        checkOutput = [this.carried, fresh].filter((x) => x !== undefined).join('\n') || undefined;
        if (checkOutput === undefined) {
          log.info(
            { reason: gate.type === 'quiet' ? gate.reason : undefined },
            'heartbeat check: nothing to do',
          );
          return { type: 'check_quiet', chat };
        }
      }
      const run = await this.d.runner.runIfIdle(chat, heartbeatPrompt(this.s.prompt, checkOutput), {
        allowNewSession: false,
        touchIdle: false,
        label: 'heartbeat',
        ...runOptions(this.s.run, `heartbeat:${chat}`),
      });
      switch (run.type) {
        case 'busy':
        case 'no_session':
          // Bounded: the prompt shows at most MAX_CHECK_OUTPUT_CHARS of it anyway.
          if (checkOutput !== undefined) this.carried = checkOutput.slice(0, 2 * MAX_CHECK_OUTPUT_CHARS);
          return this.skip(run.type, chat);
        case 'moved':
          return this.skip('moved', chat);
        case 'ran':
          this.carried = undefined;
          break;
      }
      const result = run.result;
      // Killed by /stop or by shutdown: the owner's or the relay's doing, not a failure to report.
      if (result.type === 'error' && result.kind === 'aborted') return this.skip('stopped', chat);
      if (result.type === 'error') return await this.fail(chat, result.message, o);
      const d = decideDelivery(result.text, result.media);
      if (d.type === 'nothing') {
        log.info({ chat: maskId(chat) }, 'heartbeat: nothing to report');
        return { type: 'silent', chat };
      }
      if (o.dryRun) return { type: 'would_send', chat, text: d.text, media: d.media };
      await this.d.runner.deliver(chat, o.key, d.text, d.media);
      log.info({ chat: maskId(chat), chars: d.text.length, media: d.media.length }, 'heartbeat reply sent');
      return { type: 'sent', chat, text: d.text, media: d.media };
    } catch (err) {
      log.error({ chat: maskId(chat), err }, 'heartbeat run threw');
      return await this.fail(chat, 'the relay could not run it', o);
    } finally {
      this.inFlight = false;
    }
  }

  private skip(reason: SkipReason, chat?: ChatKey): HeartbeatOutcome {
    // Without any target (no heartbeat.target, WhatsApp not linked) every tick would say so: once
    // at info is enough, the repeats go to debug.
    const quiet = reason === 'no_target' && this.lastSkip === 'no_target';
    this.lastSkip = reason;
    this.d.log[quiet ? 'debug' : 'info'](
      { reason, ...(chat ? { chat: maskId(chat) } : {}) },
      'heartbeat skipped',
    );
    return { type: 'skipped', reason, chat };
  }

  /** Only the first failure of a streak reaches the chat, so a broken agent is not announced every tick. */
  private async fail(
    chat: ChatKey,
    message: string,
    o: { key: string; report: boolean; dryRun?: boolean },
  ): Promise<HeartbeatOutcome> {
    this.d.log.warn({ chat: maskId(chat), message }, 'heartbeat run failed');
    const report = o.report && !o.dryRun && this.state.failureStreak === 0;
    if (report) {
      try {
        const text = failureText('The heartbeat check-in', { type: 'agent', message });
        await this.d.runner.deliver(chat, `${o.key}:failed`, text, []);
      } catch (err) {
        this.d.log.error({ chat: maskId(chat), err }, 'could not report the heartbeat failure');
      }
    }
    return { type: 'failed', chat, message, reported: report };
  }

  private record(now: number, outcome: HeartbeatOutcome | { type: 'missed' }): void {
    const s = this.state;
    s.lastRunAt = now;
    s.lastOutcome = outcome.type === 'skipped' ? `skipped:${outcome.reason}` : outcome.type;
    s.lastDetail = outcome.type === 'failed' || outcome.type === 'refused' ? outcome.message : undefined;
    if (outcome.type === 'failed') s.failureStreak++;
    else if (outcome.type === 'sent' || outcome.type === 'silent' || outcome.type === 'check_quiet')
      s.failureStreak = 0;
    persist(this.d, HEARTBEAT_JOB, s);
  }
}

/** The check's problem as the agent-failure message the heartbeat reports ("…: its check command …"). */
function checkFailure(r: FailureReason): string {
  switch (r.type) {
    case 'check_timeout':
      return `its check command took longer than ${r.seconds} s and was stopped`;
    case 'check_failed':
      return `its check command could not run (${r.message.replace(/[.\s]+$/, '')})`;
    default:
      return 'its check command failed';
  }
}
