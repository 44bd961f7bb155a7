// The status snapshot: one stable JSON shape shared by `agentwire status --json`, the control
// socket's `status` method and the web console. Chat ids and accounts are masked here, once, so no
// consumer can forget to; free-text errors are scrubbed of secrets and long digit runs.

import { createHash } from 'node:crypto';
import type { Usage } from '../../agents/types.js';
import type { ChannelState, ProbeResult } from '../../channels/types.js';
import { type ChannelName, parseChatKey } from '../../core/types.js';
import { cleanText, maskId } from '../../log.js';
import type { DailyUsage } from '../../store/contract/runs.js';
import type { ProcessInfo } from '../../store/ownership.js';
import { type Health, healthOf } from './health.js';
import { type LeaseView, leadsOf, leasesView } from './leases-view.js';
import { type UsageDayView, usageDays } from './usage-view.js';

/** Bumped only on a breaking change; fields may be added without a bump. */
export const STATUS_SCHEMA_VERSION = 1 as const;

export type { Health } from './health.js';

export interface ChannelView {
  name: ChannelName;
  state: ChannelState['type'];
  /** ISO time the channel entered this state. */
  since?: string;
  /** The linked account (connected only), masked unless its channel says it is public. */
  account?: string;
  /** True while a WhatsApp QR code waits to be scanned (the code itself is only on the console). */
  qrAvailable?: boolean;
  /** WhatsApp read from the store while no relay runs: whether credentials are there. */
  linked?: boolean;
  lastError?: string;
  retries?: number;
  reason?: string;
  /** `elsewhere`: the process that runs the channel's one consumer ("held by host-b pid 4242"). */
  holder?: string;
  /** WhatsApp's last liveness check (connected or degraded): its result, when, and what it said. */
  probe?: { ok: boolean; at: string; detail: string };
}

export interface ChatQueueView {
  /** Masked chat key, e.g. `whatsapp:…4567`. */
  chat: string;
  pending: number;
  /** The run in progress: since when, what started it (`user`, `heartbeat`, a schedule id). */
  active?: { startedAt: string; label?: string; agent?: string; messages?: number };
}

export interface SessionView {
  chat: string;
  agent: string;
  lastUsedAt: string;
}

export interface ScheduleView {
  id: string;
  target: string;
  nextAt?: string;
  /** Without `nextAt`: `done` (a one-shot that ran), `given_up` (cut off twice) or `never`. */
  state?: 'done' | 'given_up' | 'never';
}

export interface RunView {
  /** ISO start time. */
  at: string;
  chat: string;
  agent: string;
  durationMs: number;
  /** `ok`, or the agent error kind (`timeout`, `auth`, …). */
  outcome: string;
  /** What started it: `user`, `heartbeat` or a schedule id. */
  label?: string;
  /** As the CLI reported them; absent when it reported none. */
  inputTokens?: number;
  outputTokens?: number;
  costUsd?: number;
}

export interface FailureView {
  at: string;
  chat?: string;
  kind: string;
  message: string;
}

export interface StatusSnapshot {
  schemaVersion: typeof STATUS_SCHEMA_VERSION;
  generatedAt: string;
  /** `relay`: live from the running relay; `store`: read from the state folder while none runs. */
  source: 'relay' | 'store';
  /** `version`: the agentwire the running relay was started from. `staleLock` (offline): a lock left
   * by a relay that is gone; the next start takes it over. */
  relay: { running: boolean; pid?: number; startedAt?: string; version?: string; staleLock?: boolean };
  /** The agentwire that printed this snapshot (`agentwire status`); it may differ from the relay's. */
  cli?: { version: string };
  health: Health;
  channels: ChannelView[];
  queue: { pendingTotal: number; activeRuns: number; maxConcurrentRuns?: number; chats: ChatQueueView[] };
  sessions: SessionView[];
  /** `reason` (when off): `no_target`, no heartbeat.target and WhatsApp (the default's channel) disabled. */
  /**
   * `waitingFor: 'whatsapp_link'`: on, but its target is the WhatsApp self-chat and WhatsApp is not
   * linked, so each tick is skipped until it is (`nextAt` is then when the next skip falls).
   */
  heartbeat: {
    enabled: boolean;
    reason?: 'no_target';
    target?: string;
    nextAt?: string;
    waitingFor?: 'whatsapp_link';
  };
  schedules: ScheduleView[];
  /**
   * Reply chunks not yet sent, and those given up because sending kept failing for the whole
   * retry time (`delivery.retryHours`), with the ISO time of the last one.
   */
  replies: { unsent: number; expired: number; lastExpiredAt?: string };
  /** Newest first. */
  recentRuns: RunView[];
  /** Newest first. */
  recentFailures: FailureView[];
  /** Tokens and cost summed per day, newest day first (the last 7 days with runs). */
  usage: { days: UsageDayView[] };
  /** Live warm agent processes and cold fallbacks; only from a running relay. */
  warm?: WarmView;
  /** Questions and approvals runs wait on (docs/tools.md); `shownAt` unset: waiting its turn. */
  waitingAnswers?: { chat: string; type: 'approval' | 'question'; since: string; shownAt?: string }[];
  /**
   * The processes registered on the store (relays, `agentwire chat`), oldest first; `config` is a
   * short form of each one's config fingerprint (secrets left out), so two on different configs show.
   */
  processes?: {
    role: string;
    host: string;
    pid: number;
    startedAt: string;
    lastSeen: string;
    schemaVersion: number;
    config: string;
    /** The leader leases it holds: `scheduler`, `channel:telegram` (its one consumer)… */
    leads?: string[];
  }[];
  /** Every live leader lease and the process holding it (host and pid when it is registered). */
  leases?: LeaseView[];
}

/** Raw, unmasked inputs, gathered by the relay (live) or the store reader (offline). Times in ms. */
export interface StatusSources {
  now: number;
  source: 'relay' | 'store';
  relay: { running: boolean; pid?: number; startedAt?: number; version?: string; staleLock?: boolean };
  channels: { name: ChannelName; state: ChannelState; linked?: boolean }[];
  lanes?: {
    chat: string;
    pending: number;
    active?: { startedAt: number; label?: string; agent?: string; messages?: number };
  }[];
  maxConcurrentRuns?: number;
  sessions?: { chat: string; agent: string; lastUsedAt: number }[];
  heartbeat?: { target?: string; nextAt?: number; waitingFor?: 'whatsapp_link' };
  /** Why the heartbeat is off, when `heartbeat` is absent for a reason worth showing. */
  heartbeatOff?: 'no_target';
  schedules?: { id: string; target: string; nextAt?: number; state?: ScheduleView['state'] }[];
  runs?: {
    at: number;
    chat: string;
    agent: string;
    durationMs: number;
    outcome: string;
    label?: string;
    usage?: Usage;
  }[];
  /** Daily sums per label, as the store keeps them. */
  usage?: DailyUsage[];
  failures?: { at: number; chat?: string; kind: string; message: string }[];
  replies?: { unsent: number; expired: number; lastExpiredAt?: number };
  /** The live warm pool (a running relay only), already masked by warm-view.ts. */
  warm?: WarmView;
  waitingAnswers?: { chat: string; type: 'approval' | 'question'; createdAt: number; shownAt?: number }[];
  processes?: ProcessInfo[];
  leases?: { name: string; holder: string; expiresAt: number }[];
}

const RECENT = 20;

export function buildSnapshot(src: StatusSources): StatusSnapshot {
  const channels = src.channels.map((c) => ({
    ...channelView(c.name, c.state),
    ...(c.linked !== undefined && { linked: c.linked }),
  }));
  const lanes = src.lanes ?? [];
  return {
    schemaVersion: STATUS_SCHEMA_VERSION,
    generatedAt: iso(src.now),
    source: src.source,
    relay: {
      running: src.relay.running,
      ...(src.relay.pid !== undefined && { pid: src.relay.pid }),
      ...(src.relay.startedAt !== undefined && { startedAt: iso(src.relay.startedAt) }),
      ...(src.relay.version !== undefined && { version: src.relay.version }),
      ...(src.relay.staleLock && { staleLock: true }),
    },
    health: healthOf(src.relay.running, channels),
    channels,
    queue: {
      pendingTotal: lanes.reduce((n, l) => n + l.pending, 0),
      activeRuns: lanes.filter((l) => l.active).length,
      ...(src.maxConcurrentRuns !== undefined && { maxConcurrentRuns: src.maxConcurrentRuns }),
      chats: lanes
        .filter((l) => l.pending > 0 || l.active)
        .map((l) => ({
          chat: maskChat(l.chat),
          pending: l.pending,
          ...(l.active && {
            active: {
              startedAt: iso(l.active.startedAt),
              ...(l.active.label !== undefined && { label: l.active.label }),
              ...(l.active.agent !== undefined && { agent: l.active.agent }),
              ...(l.active.messages !== undefined && { messages: l.active.messages }),
            },
          }),
        })),
    },
    sessions: (src.sessions ?? [])
      .toSorted((a, b) => b.lastUsedAt - a.lastUsedAt)
      .map((s) => ({ chat: maskChat(s.chat), agent: s.agent, lastUsedAt: iso(s.lastUsedAt) })),
    heartbeat: {
      enabled: src.heartbeat !== undefined,
      ...(src.heartbeat === undefined && src.heartbeatOff && { reason: src.heartbeatOff }),
      ...(src.heartbeat?.target !== undefined && { target: maskTarget(src.heartbeat.target) }),
      ...(src.heartbeat?.nextAt !== undefined && { nextAt: iso(src.heartbeat.nextAt) }),
      ...(src.heartbeat?.waitingFor !== undefined && { waitingFor: src.heartbeat.waitingFor }),
    },
    schedules: (src.schedules ?? []).map((s) => ({
      id: s.id,
      target: maskTarget(s.target),
      ...(s.nextAt !== undefined && { nextAt: iso(s.nextAt) }),
      ...(s.nextAt === undefined && s.state !== undefined && { state: s.state }),
    })),
    replies: {
      unsent: src.replies?.unsent ?? 0,
      expired: src.replies?.expired ?? 0,
      ...(src.replies?.lastExpiredAt !== undefined && { lastExpiredAt: iso(src.replies.lastExpiredAt) }),
    },
    recentRuns: (src.runs ?? [])
      .toSorted((a, b) => b.at - a.at)
      .slice(0, RECENT)
      .map((r) => ({
        at: iso(r.at),
        chat: maskChat(r.chat),
        agent: r.agent,
        durationMs: Math.max(0, Math.round(r.durationMs)),
        outcome: r.outcome,
        ...(r.label !== undefined && { label: r.label }),
        ...(r.usage?.inputTokens !== undefined && { inputTokens: r.usage.inputTokens }),
        ...(r.usage?.outputTokens !== undefined && { outputTokens: r.usage.outputTokens }),
        ...(r.usage?.costUsd !== undefined && { costUsd: r.usage.costUsd }),
      })),
    recentFailures: (src.failures ?? [])
      .toSorted((a, b) => b.at - a.at)
      .slice(0, RECENT)
      .map((f) => ({
        at: iso(f.at),
        ...(f.chat !== undefined && { chat: maskChat(f.chat) }),
        kind: f.kind,
        message: cleanText(f.message),
      })),
    usage: { days: usageDays(src.usage ?? []) },
    ...(src.warm && { warm: src.warm }),
    ...(src.waitingAnswers?.length && {
      waitingAnswers: src.waitingAnswers.map((w) => ({
        chat: maskChat(w.chat),
        type: w.type,
        since: iso(w.createdAt),
        ...(w.shownAt !== undefined && { shownAt: iso(w.shownAt) }),
      })),
    }),
    ...(src.processes?.length && {
      processes: src.processes.map((p) => ({
        role: p.role,
        host: p.host,
        pid: p.pid,
        startedAt: iso(p.startedAt),
        lastSeen: iso(p.lastSeen),
        schemaVersion: p.schemaVersion,
        config: shortFingerprint(p.fingerprint),
        ...leadsOf(src, p.id),
      })),
    }),
    ...leasesView(src),
  };
}

/** A fingerprint short enough to compare by eye (the registry keeps a hash per config section). */
function shortFingerprint(f: string): string {
  return createHash('sha256').update(f).digest('hex').slice(0, 8);
}

export interface WarmView {
  maxProcesses: number;
  /** The memory budget over all live processes and one process's limit (agents.warm.maxMemoryMb, maxProcessMemoryMb). */
  maxMemoryBytes?: number;
  maxProcessBytes?: number;
  /** What the live processes hold now: their samples summed. */
  usedBytes?: number;
  /** Processes started since the relay started (a burst costs one per chat that needed one). */
  starts?: number;
  processes: {
    /** The session scope, masked as chats are: a chat key, or `*` for the one global session. */
    chat: string;
    agent: string;
    pid?: number;
    startedAt: string;
    lastTurnAt: string;
    ageSeconds: number;
    idleSeconds: number;
    busy: boolean;
    /** Resident memory summed over the process and its descendants (Linux /proc; absent elsewhere). */
    rssBytes?: number;
  }[];
  fallbacks: { agent: string; reason: string }[];
}

export function channelView(name: ChannelName, s: ChannelState): ChannelView {
  switch (s.type) {
    case 'disabled':
    case 'stopped':
      return { name, state: s.type };
    case 'connecting':
      return {
        name,
        state: s.type,
        since: iso(s.since),
        qrAvailable: Boolean(s.qr),
        ...(s.lastError !== undefined && { lastError: cleanText(s.lastError) }),
        ...(s.retries !== undefined && { retries: s.retries }),
      };
    case 'connected':
      return {
        name,
        state: s.type,
        since: iso(s.since),
        // Shown as is only when the channel says the name is public; a phone number stays masked.
        ...(s.account && { account: s.accountPublic ? s.account : maskChat(s.account) }),
        ...(s.probe && { probe: probeView(s.probe) }),
      };
    case 'degraded':
      return {
        name,
        state: s.type,
        since: iso(s.since),
        lastError: cleanText(s.lastError),
        retries: s.retries,
        ...(s.probe && { probe: probeView(s.probe) }),
      };
    case 'relink_required':
      return { name, state: s.type, since: iso(s.since), reason: cleanText(s.reason) };
    case 'elsewhere':
      return { name, state: s.type, since: iso(s.since), holder: cleanText(s.holder) };
  }
}

const probeView = (p: ProbeResult): NonNullable<ChannelView['probe']> => ({
  ok: p.ok,
  at: iso(p.at),
  detail: cleanText(p.detail),
});

/**
 * Masks a chat key or id with maskId. A WhatsApp JID keeps its domain (`…3023@g.us`) so groups and
 * people stay distinguishable while the number itself is hidden.
 */
export function maskChat(key: string): string {
  if (key === '*') return '*'; // the one session all chats share (sessions.scope "global")
  const at = key.lastIndexOf('@');
  if (at <= 0) return maskId(key);
  return `${maskId(key.slice(0, at))}${key.slice(at)}`;
}

/** A job target is a chat key; anything else (the "self-chat" default label) is shown as a fixed word. */
function maskTarget(target: string): string {
  return parseChatKey(target) ? maskChat(target) : 'the WhatsApp self-chat';
}

// Kept in log.ts (the store's run records use it too); exported here for status's readers.
export { cleanText } from '../../log.js';
export { type UsageDayView, type UsageSums, usageDays } from './usage-view.js';

const iso = (ms: number): string => new Date(ms).toISOString();
