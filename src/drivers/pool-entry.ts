// One session the warm pool holds (./pool.ts), and what the pool's decisions and /status see of it.
import type { AgentKind, ProcessTools } from '../agents/types.js';
import { groupRssBytes } from '../runner/rss.js';
import type { Slot } from './pool-policy.js';
import type { SessionDriver } from './types.js';

export interface WarmProcessInfo {
  lane: string;
  kind: AgentKind;
  /** The process the lane's session runs in (lanes with the same one share it). */
  host: string;
  pid?: number;
  startedAt: number;
  lastTurnAt: number;
  busy: boolean;
  rssBytes?: number;
}

export interface Entry {
  lane: string;
  kind: AgentKind;
  settings: string;
  driver: SessionDriver;
  /** The process under the session: entries with the same host share one. */
  host: string;
  sessionId: string | undefined;
  startedAt: number;
  lastTurnAt: number;
  busy: boolean;
  /** Starting, or being closed: counts against the cap, never evicted. */
  reserved: boolean;
  closeAfterTurn: boolean;
  /** Texts steered into the running turn: a turn run again in a new process must carry them. */
  steered: string[];
  timer?: NodeJS.Timeout;
  /** agentwire's tools for this process: its own token, bound to each turn's run (docs/tools.md). */
  tools?: ProcessTools;
  /** Removes the tools' files once the process closed. */
  cleanup?: () => void;
}

/** What a lane's session serves, for pool-policy.ts's `reuse`. */
export function serving(e: Entry) {
  const st = e.driver.state();
  return {
    kind: e.kind,
    settings: e.settings,
    sessionId: e.sessionId,
    usable: st.type === 'idle' && !e.reserved,
  };
}

/** What /status shows of one session (the RSS is its process's: shared ones count once a session). */
export function entryInfo(e: Entry, now: number): WarmProcessInfo {
  const pid = e.driver.pid();
  const rss = pid !== undefined ? groupRssBytes(pid) : undefined;
  return {
    lane: e.lane,
    kind: e.kind,
    host: e.host,
    ...(pid !== undefined ? { pid } : {}),
    startedAt: e.startedAt,
    lastTurnAt: Math.min(e.lastTurnAt, now),
    busy: e.busy,
    ...(rss !== undefined ? { rssBytes: rss } : {}),
  };
}

/**
 * The pool's sessions as one slot a process (named by its host), for the cap: busy or reserved
 * if any session on it is, last used when any was. Evicting the slot closes all its sessions.
 */
export function processSlots(sessions: readonly (Slot & { host: string })[]): Slot[] {
  const by = new Map<string, Slot>();
  for (const e of sessions) {
    const s = by.get(e.host);
    if (!s) by.set(e.host, { lane: e.host, busy: e.busy, reserved: !!e.reserved, lastTurnAt: e.lastTurnAt });
    else {
      s.busy ||= e.busy;
      s.reserved ||= !!e.reserved;
      s.lastTurnAt = Math.max(s.lastTurnAt, e.lastTurnAt);
    }
  }
  return [...by.values()];
}
