// `agentwire schedules` without a relay: what each job will do next, computed from the config and
// the stored state with the same rules the scheduler applies at start (plan.ts), so the listing
// and the relay never disagree.
import { firstActiveTick } from '../core/hours.js';
import type { JobState } from '../core/job-state.js';
import { describeTiming, fingerprint, type Timing } from '../core/timing.js';
import { dueDecision, nextAfter, planAtStart } from './plan.js';
import {
  type HeartbeatConfig,
  type RunChoice,
  resolveHeartbeat,
  resolveSchedule,
  type ScheduleConfig,
} from './settings.js';
import { HEARTBEAT_JOB, scheduleJob } from './state.js';
import { hasDefaultTarget } from './target.js';

/** `paused`: an agent's task paused with pause_task (it keeps its place until resumed). */
export type NextState = 'scheduled' | 'due_now' | 'done' | 'given_up' | 'never' | 'paused';

export interface JobRow {
  id: string;
  timing: string;
  target: string;
  timeZone?: string;
  state: NextState;
  /** When it will fire next (for `due_now`: the occurrence it is late for). */
  nextAt?: number;
  lastAt?: number;
  lastOutcome?: string;
  lastDetail?: string;
  /** How it runs when that differs from the chat's defaults: "own session, codex, model x, pre-check". */
  runsWith?: string;
}

/**
 * `whatsapp_link`: the heartbeat's target is the WhatsApp self-chat (no heartbeat.target) and
 * WhatsApp is not linked, so every tick is skipped (`no_target`) until it is. Shown instead of a
 * plain "next in 29m" that would never happen.
 */
export type HeartbeatWait = 'whatsapp_link';

export interface Listing {
  heartbeat: /** `no_target`: off because there is no chat to check in with (no target, WhatsApp disabled). */
    | { enabled: false; reason?: 'no_target' }
    | (Omit<JobRow, 'id' | 'timing'> & {
        enabled: true;
        everyMinutes: number;
        activeHours?: string;
        waitingFor?: HeartbeatWait;
      });
  schedules: JobRow[];
  /** Config entries that could not be resolved (normally already refused at config load). */
  problems: string[];
}

export type LoadState = (job: string) => JobState | undefined;

export const DEFAULT_TARGET_LABEL = 'the linked WhatsApp self-chat';

function next(t: Timing, state: JobState | undefined, now: number): Pick<JobRow, 'state' | 'nextAt'> {
  const plan = planAtStart(t, state, now);
  if (plan.type === 'idle')
    return { state: plan.reason === 'gave_up' ? 'given_up' : plan.reason === 'done' ? 'done' : 'never' };
  if (plan.occurrence > now) return { state: 'scheduled', nextAt: plan.occurrence };
  if (dueDecision(t, plan.occurrence, now).type === 'fire')
    return { state: 'due_now', nextAt: plan.occurrence };
  const after = nextAfter(t, plan.occurrence, now);
  return after === undefined ? { state: 'never' } : { state: 'scheduled', nextAt: after };
}

function last(state: JobState | undefined): Pick<JobRow, 'lastAt' | 'lastOutcome' | 'lastDetail'> {
  return { lastAt: state?.lastRunAt, lastOutcome: state?.lastOutcome, lastDetail: state?.lastDetail };
}

export function buildListing(
  config: {
    heartbeat: HeartbeatConfig;
    schedules: readonly ScheduleConfig[];
    /** The channels' sections (a listing built from a few sections assumes the rest). */
    readonly [section: string]: unknown;
  },
  load: LoadState,
  now: number,
  /**
   * The linked WhatsApp self-chat (`whatsapp:+1555…`) as the store knows it, undefined when not
   * linked. Left out, the default target is shown as words, unresolved.
   */
  selfChat?: () => string | undefined,
): Listing {
  const problems: string[] = [];
  const hb = resolveHeartbeat(config.heartbeat, hasDefaultTarget(config));
  let heartbeat: Listing['heartbeat'] =
    hb.type === 'off' && hb.reason ? { enabled: false, reason: hb.reason } : { enabled: false };
  if (hb.type === 'invalid') problems.push(hb.error);
  if (hb.type === 'on') {
    const fp = `every:${hb.everyMs}`;
    const stored = load(HEARTBEAT_JOB);
    const state = stored?.fingerprint === fp ? stored : undefined;
    const h = hb.activeHours;
    const n = next({ type: 'every', ms: hb.everyMs, text: '' }, state, now);
    // Ticks outside active hours are skipped: show the first one that will really fire.
    if (h && n.state === 'scheduled' && n.nextAt !== undefined)
      n.nextAt = firstActiveTick(n.nextAt, hb.everyMs, h);
    if (n.nextAt === undefined) n.state = 'never';
    const self = hb.target === undefined && selfChat ? selfChat() : undefined;
    const waiting = hb.target === undefined && selfChat !== undefined && self === undefined;
    heartbeat = {
      enabled: true,
      everyMinutes: hb.everyMs / 60_000,
      target: hb.target ?? self ?? DEFAULT_TARGET_LABEL,
      ...(waiting && { waitingFor: 'whatsapp_link' as const }),
      ...withRun(hb.run, hb.check !== undefined),
      timeZone: h?.timeZone,
      activeHours: h ? `${h.start}-${h.end}${h.timeZone ? ` ${h.timeZone}` : ''}` : undefined,
      ...n,
      ...last(state),
    };
  }
  const schedules: JobRow[] = [];
  for (const c of config.schedules) {
    const r = resolveSchedule(c);
    if (!r.ok) {
      problems.push(r.error);
      continue;
    }
    const stored = load(scheduleJob(c.id));
    const state = stored?.fingerprint === fingerprint(r.spec.fields) ? stored : undefined;
    schedules.push({
      id: c.id,
      timing: describeTiming(r.spec.timing),
      target: r.spec.target,
      timeZone: c.timeZone,
      ...withRun(r.spec.run, r.spec.check !== undefined),
      ...next(r.spec.timing, state, now),
      ...last(state),
    });
  }
  return { heartbeat, schedules, problems };
}

const SESSION_WORDS = { chat: undefined, own: 'its own session', fresh: 'a fresh session each run' } as const;

/** `runsWith` for a job, when anything differs from running in the chat's session with its agent. */
function withRun(r: RunChoice, check: boolean): Pick<JobRow, 'runsWith'> {
  const parts = [
    SESSION_WORDS[r.session],
    r.agent,
    r.model !== undefined ? `model ${r.model}` : undefined,
    check ? 'a pre-check' : undefined,
  ].filter((p): p is string => p !== undefined);
  return parts.length > 0 ? { runsWith: parts.join(', ') } : {};
}
