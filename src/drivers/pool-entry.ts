// What the warm pool's decisions and /status see of its sessions (./pool-types.ts `Entry`): a codex
// or ACP process may hold several chats' sessions (./hosts.ts), so the cap and the memory budget
// count processes, and /status shows each session with the process it runs in.
import { treeRssBytes } from '../runner/rss.js';
import type { Slot } from './pool-policy.js';
import type { Entry, WarmProcessInfo } from './pool-types.js';

/** What /status shows of one session (the RSS is its process's: shared ones count once a session). */
export function entryInfo(e: Entry, now: number): WarmProcessInfo {
  const pid = e.driver.pid();
  const rss = pid !== undefined ? treeRssBytes(pid) : undefined;
  if (rss !== undefined) e.rssBytes = rss;
  return {
    sessionKey: e.sessionKey,
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
 * The pool's sessions as one slot a process (named by its host), for the cap and the budget: busy,
 * reserved or wanted if any session on it is, last used when any was, its memory once (every
 * session on it measures the same process). Evicting the slot closes all its sessions.
 */
export function processSlots(sessions: readonly (Slot & { host: string })[]): Slot[] {
  const by = new Map<string, Slot>();
  for (const e of sessions) {
    const s = by.get(e.host);
    if (!s) {
      by.set(e.host, {
        key: e.host,
        busy: e.busy,
        reserved: !!e.reserved,
        lastTurnAt: e.lastTurnAt,
        ...(e.wanted !== undefined && { wanted: e.wanted }),
        ...(e.rssBytes !== undefined && { rssBytes: e.rssBytes }),
        expectBytes: e.expectBytes,
      });
      continue;
    }
    s.busy ||= e.busy;
    s.reserved ||= !!e.reserved;
    if (e.wanted) s.wanted = true;
    s.lastTurnAt = Math.max(s.lastTurnAt, e.lastTurnAt);
    if (e.rssBytes !== undefined) s.rssBytes = Math.max(s.rssBytes ?? 0, e.rssBytes);
    s.expectBytes = Math.max(s.expectBytes, e.expectBytes);
  }
  return [...by.values()];
}
