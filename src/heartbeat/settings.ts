// Config sections `heartbeat` and `schedules`, resolved into what the jobs run on. The schema
// already refused bad time zones, cron expressions, intervals and targets at load (naming the key);
// these functions resolve defaults and keep the same checks as values for callers that bypass it.
import type { AgentKind } from '../agents/types.js';
import type { ActiveHours } from '../core/hours.js';
import { parseTiming, type Timing, type TimingFields } from '../core/timing.js';
import type { ChatKey, SystemRunOptions, SystemSession } from '../core/types.js';
import { DEFAULT_HEARTBEAT_PROMPT } from './prompt.js';
import { checkHeartbeatTarget, checkScheduleTarget, noTargetMessage } from './target.js';

export const DEFAULT_HEARTBEAT_MINUTES = 30;

export type SessionMode = 'chat' | 'own' | 'fresh';

/** The agent, model and session a job runs with (config `agent`, `model`, `session`). */
export interface RunChoiceConfig {
  agent?: string;
  model?: string;
  session?: SessionMode;
}

export interface RunChoice {
  agent?: AgentKind;
  model?: string;
  session: SessionMode;
}

export interface HeartbeatConfig extends RunChoiceConfig {
  everyMinutes?: number;
  target?: string;
  prompt?: string;
  activeHours?: ActiveHours;
  check?: string[];
  checkTimeoutSeconds?: number;
}

export interface ScheduleConfig extends TimingFields, RunChoiceConfig {
  id: string;
  target: string;
  prompt: string;
  check?: string[];
  checkTimeoutSeconds: number;
}

export const DEFAULT_CHECK_TIMEOUT_SECONDS = 60;

// `chat` is the default: it is what heartbeats and schedules always did, and the default heartbeat
// prompt ("look at what you were asked to keep an eye on") only works with the chat's context.
// `own` and `fresh` are opt-in for jobs whose prompt says everything (docs/heartbeat.md).
function runChoice(c: RunChoiceConfig): RunChoice {
  return {
    ...(c.agent !== undefined && { agent: c.agent as AgentKind }),
    ...(c.model !== undefined && { model: c.model }),
    session: c.session ?? 'chat',
  };
}

/**
 * The runner options for a job's choice: `ownKey` names its own session (`session: 'own'`). Only
 * what differs from the chat's defaults is set.
 */
export function runOptions(
  r: RunChoice,
  ownKey: string,
): Pick<SystemRunOptions, 'session' | 'agent' | 'model'> {
  const session: SystemSession | undefined =
    r.session === 'own'
      ? { type: 'own', key: ownKey }
      : r.session === 'fresh'
        ? { type: 'fresh' }
        : undefined;
  return {
    ...(session && { session }),
    ...(r.agent !== undefined && { agent: r.agent }),
    ...(r.model !== undefined && { model: r.model }),
  };
}

export type HeartbeatSettings =
  /** `no_target`: nothing set everyMinutes, and there is no chat to check in with. */
  | { type: 'off'; reason?: 'no_target' }
  | {
      type: 'on';
      everyMs: number;
      /** The configured chat; when absent the injected default (the WhatsApp self-chat) is used. */
      target?: ChatKey;
      prompt: string;
      activeHours?: ActiveHours;
      /** Pre-check argv: the agent runs only when it exits 0 and prints something. */
      check?: readonly string[];
      checkTimeoutMs: number;
      run: RunChoice;
    };

/**
 * `selfChat` says whether a default target can exist (WhatsApp is enabled, so its self-chat will be
 * known once linked). Without it and without heartbeat.target there is no chat to check in with:
 * the default interval then leaves the heartbeat off rather than ticking at nobody, and an explicit
 * everyMinutes is a contradiction (the schema refuses it at load, naming heartbeat.target).
 */
export function resolveHeartbeat(
  c: HeartbeatConfig,
  selfChat = true,
): HeartbeatSettings | { type: 'invalid'; error: string } {
  const minutes = c.everyMinutes ?? DEFAULT_HEARTBEAT_MINUTES;
  if (minutes === 0) return { type: 'off' };
  if (c.target === undefined && !selfChat) {
    return c.everyMinutes === undefined
      ? { type: 'off', reason: 'no_target' }
      : { type: 'invalid', error: `heartbeat.target: ${noTargetMessage()}` };
  }
  let target: ChatKey | undefined;
  if (c.target !== undefined) {
    const t = checkHeartbeatTarget(c.target);
    if (!t.ok) return { type: 'invalid', error: `heartbeat.target: ${t.message}` };
    target = t.chat;
  }
  return {
    type: 'on',
    everyMs: minutes * 60_000,
    target,
    prompt: c.prompt?.trim() ? c.prompt : DEFAULT_HEARTBEAT_PROMPT,
    activeHours: c.activeHours,
    ...(c.check && { check: c.check }),
    checkTimeoutMs: (c.checkTimeoutSeconds ?? DEFAULT_CHECK_TIMEOUT_SECONDS) * 1000,
    run: runChoice(c),
  };
}

export interface ScheduleSpec {
  id: string;
  timing: Timing;
  fields: TimingFields;
  target: ChatKey;
  prompt: string;
  check?: readonly string[];
  checkTimeoutMs: number;
  run: RunChoice;
}

export function resolveSchedule(
  c: ScheduleConfig,
): { ok: true; spec: ScheduleSpec } | { ok: false; error: string } {
  const t = parseTiming(c);
  if (!t.ok) return { ok: false, error: `schedule "${c.id}" ${t.key}: ${t.error}` };
  const target = checkScheduleTarget(c.target);
  if (!target.ok) return { ok: false, error: `schedule "${c.id}" target: ${target.message}` };
  return {
    ok: true,
    spec: {
      id: c.id,
      timing: t.timing,
      fields: { cron: c.cron, every: c.every, at: c.at, timeZone: c.timeZone },
      target: target.chat,
      prompt: c.prompt,
      check: c.check,
      checkTimeoutMs: c.checkTimeoutSeconds * 1000,
      run: runChoice(c),
    },
  };
}
