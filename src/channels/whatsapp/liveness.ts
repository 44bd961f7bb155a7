// The liveness watchdog. A WhatsApp Web link can look open while nothing arrives: keep-
// alives still succeed on a socket whose message stream died, or the phone dropped the link without
// a close event. After `quietMs` without any proof of life (an inbound event, or a probe answered),
// one probe runs; a failed probe forces a reconnect, and failures in a row make the channel
// `degraded`. Every proof of life pushes the next probe back, and a reconnect re-arms the timer from
// the open, so a healthy quiet link is probed once per quiet period and never reconnected, and a
// forced reconnect cannot turn into a reconnect loop (openclaw#62258: a watchdog whose timer was not
// reset reconnected every 60 s).
import type { Logger } from '../../log.js';
import type { ProbeResult } from '../types.js';
import type { Scheduler } from './connection.js';
import type { ProbeOutcome } from './probe.js';

export interface LivenessSettings {
  /** Silence before a probe; 0 turns the watchdog off. */
  quietMs: number;
  /** A probe not answered by then failed. */
  probeTimeoutMs: number;
  /** Failed probes in a row before the channel reports itself degraded. */
  degradedAfter: number;
  /** After a failed probe and its reconnect, the next probe comes sooner: this, doubling per failure, up to quietMs. */
  recheckMs: number;
}

export const DEFAULT_LIVENESS: Omit<LivenessSettings, 'quietMs'> = {
  probeTimeoutMs: 30_000,
  degradedAfter: 2,
  recheckMs: 60_000,
};

export interface LivenessDeps {
  settings: LivenessSettings;
  scheduler: Scheduler;
  now: () => number;
  probe: () => Promise<ProbeOutcome>;
  reconnect: (reason: string) => void;
  /** Called when the probe result or the failure count changes (the channel's state then changes too). */
  onChange: () => void;
  log: Logger;
}

export class Liveness {
  private timer: unknown;
  private up = false;
  private lastHeard: number | undefined;
  private outage: number | undefined;
  private failures = 0;
  private failingSince: number | undefined;
  private last: ProbeResult | undefined;
  /** Bumped on every link change, so a probe that outlives its socket is ignored. */
  private epoch = 0;

  constructor(private readonly deps: LivenessDeps) {}

  /** The link opened: re-arm from now (a fresh socket gets a full quiet period, or a recheck). */
  linkUp(): void {
    this.epoch++;
    this.up = true;
    this.lastHeard = this.deps.now();
    this.arm(this.failures > 0 ? this.recheckDelay() : this.deps.settings.quietMs);
  }

  /** The link closed: no probes until it opens again; the outage began when we last heard from it. */
  linkDown(): void {
    this.epoch++;
    if (this.up) this.outage = this.lastHeard ?? this.deps.now();
    this.up = false;
    this.cancel();
  }

  stop(): void {
    this.linkDown();
  }

  /** An event WhatsApp pushed to us: the link delivers, so the next probe moves back. */
  heard(): void {
    this.lastHeard = this.deps.now();
    if (this.failures > 0) {
      this.failures = 0;
      this.failingSince = undefined;
      this.deps.onChange();
    }
  }

  /** Since when the last outage lasted (when the link was last heard before it went down), if any. */
  outageStart(): number | undefined {
    return this.outage;
  }

  /** Failed probes in a row, and since when; undefined while the link proves itself alive. */
  failing(): { count: number; since: number } | undefined {
    return this.failures > 0 && this.failingSince !== undefined
      ? { count: this.failures, since: this.failingSince }
      : undefined;
  }

  degraded(): boolean {
    return this.failures >= this.deps.settings.degradedAfter;
  }

  lastProbe(): ProbeResult | undefined {
    return this.last;
  }

  private recheckDelay(): number {
    const { recheckMs, quietMs } = this.deps.settings;
    return Math.min(quietMs, recheckMs * 2 ** Math.max(0, this.failures - 1));
  }

  private cancel(): void {
    if (this.timer !== undefined) this.deps.scheduler.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(ms: number): void {
    this.cancel();
    if (this.deps.settings.quietMs <= 0 || !this.up) return;
    this.timer = this.deps.scheduler.setTimeout(() => {
      this.timer = undefined;
      this.due();
    }, ms);
  }

  private due(): void {
    // Checked lazily: events only stamp `lastHeard`, so a busy link costs no timer churn.
    const quiet = this.deps.now() - (this.lastHeard ?? 0);
    if (this.failures === 0 && quiet < this.deps.settings.quietMs) {
      this.arm(this.deps.settings.quietMs - quiet);
      return;
    }
    void this.runProbe();
  }

  private async runProbe(): Promise<void> {
    const epoch = this.epoch;
    const started = this.deps.now();
    const outcome = await this.withTimeout(this.deps.probe());
    if (epoch !== this.epoch) return; // the link changed meanwhile: that result describes nothing live
    const at = this.deps.now();
    if (outcome.ok) {
      this.last = { ok: true, at, detail: `answered in ${Math.max(0, at - started)} ms` };
      this.lastHeard = at;
      const wasFailing = this.failures > 0;
      this.failures = 0;
      this.failingSince = undefined;
      if (wasFailing) this.deps.log.info('whatsapp liveness probe answered again');
      this.deps.onChange();
      this.arm(this.deps.settings.quietMs);
      return;
    }
    this.last = { ok: false, at, detail: outcome.error };
    this.failures += 1;
    this.failingSince ??= at;
    this.deps.log.warn(
      { failures: this.failures, error: outcome.error },
      'whatsapp liveness probe failed: reconnecting',
    );
    this.deps.onChange();
    this.deps.reconnect(`liveness probe failed: ${outcome.error}`);
  }

  private withTimeout(p: Promise<ProbeOutcome>): Promise<ProbeOutcome> {
    return new Promise((resolve) => {
      const ms = this.deps.settings.probeTimeoutMs;
      const timer = this.deps.scheduler.setTimeout(
        () => resolve({ ok: false, error: `no answer within ${Math.round(ms / 1000)} s` }),
        ms,
      );
      p.then(
        (r) => resolve(r),
        (err: Error) => resolve({ ok: false, error: err.message }),
      ).finally(() => this.deps.scheduler.clearTimeout(timer));
    });
  }
}
