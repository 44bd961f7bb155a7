// A run's progress events become one status message: reduced to a line (core/progress.ts), sent
// through the ProgressPort when the throttle allows (core/progress-throttle.ts), one call at a time,
// only the newest line when several piled up. A tool that runs long is redrawn now and then so its
// time counts up. Best effort throughout: a port that fails costs the status message, never the run.
import type { ProgressSettings } from '../config/schema-progress.js';
import {
  type ProgressState,
  reduceProgress,
  renderProgress,
  startProgress,
  summaryLine,
} from '../core/progress.js';
import type { ProgressListener } from '../core/progress-event.js';
import { editDecision, STATUS_DELAY_MS, startDecision } from '../core/progress-throttle.js';
import type { Logger } from '../log.js';
import { maskId } from '../log.js';
import type { ProgressPort, ProgressRun } from './progress-port.js';

/** How often a long-running tool's line is redrawn to show its time (never faster than the throttle). */
export const TICK_MS = 5000;

export interface ProgressFeed {
  /** The run's `onEvent`. */
  listener: ProgressListener;
  /** The run ended: the message gets its summary (or goes); resolves once the port settled. */
  finish(): Promise<void>;
}

export interface FeedOptions {
  port: ProgressPort;
  run: ProgressRun;
  settings: ProgressSettings;
  minIntervalMs: number;
  now: () => number;
  log: Logger;
  /** Tests redraw sooner than TICK_MS. */
  tickMs?: number;
  /** How long a run without a tool call works before its status message appears (STATUS_DELAY_MS). */
  startDelayMs?: number;
}

export function progressFeed(o: FeedOptions): ProgressFeed {
  let state: ProgressState = startProgress(o.now());
  let shown: string | undefined;
  let lastEditAt: number | undefined;
  let started = false;
  let firstEventAt: number | undefined;
  let closed = false;
  let busy: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let timerAt = Number.POSITIVE_INFINITY;

  const failed = (err: unknown) =>
    o.log.warn(
      { err: (err as Error)?.message, chat: maskId(o.run.chat) },
      'could not update the status message',
    );

  const wakeAt = (at: number) => {
    if (closed || at >= timerAt) return;
    if (timer) clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(
      () => {
        timer = undefined;
        timerAt = Number.POSITIVE_INFINITY;
        pump();
      },
      Math.max(0, at - o.now()),
    );
    timer.unref?.();
  };

  const send = (text: string) => {
    const first = !started;
    started = true;
    shown = text;
    lastEditAt = o.now();
    busy = (first ? o.port.start(o.run, text) : o.port.update(o.run, text)).catch(failed).finally(() => {
      busy = undefined;
      pump();
    });
  };

  const pump = () => {
    if (closed || busy) return;
    const now = o.now();
    if (!started) {
      // A short answer gets no status message: only a tool call, a question or some time at work.
      const s = startDecision(
        { firstEventAt: firstEventAt ?? now, now, tools: state.tools, asking: state.phase.type === 'asking' },
        o.startDelayMs ?? STATUS_DELAY_MS,
      );
      if (s.type === 'wait') {
        wakeAt(s.until);
        return;
      }
    }
    const text = renderProgress(state, now, o.settings.mode);
    const d = editDecision({ lastEditAt, now, minIntervalMs: o.minIntervalMs, changed: text !== shown });
    switch (d.type) {
      case 'edit':
        send(text);
        break;
      case 'wait':
        wakeAt(d.until);
        break;
      case 'skip':
        break;
    }
    // A tool still running: its time on the line goes stale, so the line is looked at again.
    if (state.open.length > 0 && lastEditAt !== undefined)
      wakeAt(Math.max(lastEditAt, now) + (o.tickMs ?? TICK_MS));
  };

  return {
    listener: (ev) => {
      if (closed) return;
      firstEventAt ??= o.now();
      state = reduceProgress(state, ev);
      pump();
    },
    async finish() {
      if (closed) return;
      closed = true;
      if (timer) clearTimeout(timer);
      await busy;
      if (!started) return;
      // `delete` carries the summary too: a channel that cannot delete ends on it instead.
      await o.port.finish(o.run, { type: o.settings.end, text: summaryLine(state, o.now()) }).catch(failed);
    },
  };
}

/** A run's status message, when its channel section asks for one and the channel can edit messages. */
export function statusFeed(
  progress: { port: ProgressPort; settings: ProgressSettings } | undefined,
  run: ProgressRun,
  deps: { now: () => number; log: Logger },
): ProgressFeed | undefined {
  const minIntervalMs = progress?.port.editIntervalMs(run.chat);
  if (!progress || minIntervalMs === undefined) return undefined;
  return progressFeed({ port: progress.port, run, settings: progress.settings, minIntervalMs, ...deps });
}
