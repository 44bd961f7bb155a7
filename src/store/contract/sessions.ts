// The sessions' rules, whatever the engine: the scope a chat's session lives under, a session row as
// callers see it, and whether it may be resumed. Pure; no engine is imported here.
import type { AgentKind } from '../../agents/types.js';
import type { ChatKey } from '../../core/types.js';

/** The scope a chat's session lives under. */
export const GLOBAL_SCOPE = '*';
/** `own:<key>`: a session a heartbeat or schedule keeps for itself (`session: 'own'`). */
export type SessionScope = ChatKey | typeof GLOBAL_SCOPE | `own:${string}`;

export const scopeFor = (chat: ChatKey, scope: 'per-chat' | 'global'): SessionScope =>
  scope === 'global' ? GLOBAL_SCOPE : chat;

export interface SessionRow {
  sessionId: string;
  createdAt: number;
  lastUsedAt: number;
  /**
   * True once a run in this session succeeded. An unconfirmed session is still resumed (a first run
   * that timed out may have left work in it), but if the CLI then says it does not exist, nothing
   * was lost and the chat is not told that context was reset.
   */
  confirmed: boolean;
}

export type SessionState =
  | { type: 'none' }
  | { type: 'expired'; row: SessionRow }
  | { type: 'active'; row: SessionRow };

/** Pure: whether a stored session may be resumed at `now`. `idleMinutes` 0 never expires. */
export function sessionState(row: SessionRow | undefined, now: number, idleMinutes: number): SessionState {
  if (!row) return { type: 'none' };
  if (idleMinutes > 0 && now - row.lastUsedAt >= idleMinutes * 60_000) return { type: 'expired', row };
  return { type: 'active', row };
}

export interface ChatSettings {
  agent?: AgentKind;
  thinking?: string;
  verbose: boolean;
}
