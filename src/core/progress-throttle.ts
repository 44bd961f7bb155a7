// When a status message may be edited again. Platforms limit edits (Telegram and Slack about one a
// second per chat, Discord five in five seconds) and a phone buzzes or redraws on each, so a burst
// of tool calls must become a few edits showing the latest line, never a queue of stale ones.

/** No platform is edited faster than this, whatever it allows: 30 tools in 10 s make at most 10 edits. */
export const MIN_EDIT_INTERVAL_MS = 1000;

export interface EditClock {
  /** When the message was last sent or edited; undefined: not yet sent. */
  lastEditAt: number | undefined;
  now: number;
  /** The channel's own least interval between edits of one message. */
  minIntervalMs: number;
  /** Whether the text to show differs from what the message shows. */
  changed: boolean;
}

export type EditDecision =
  | { type: 'edit' }
  /** Too soon: edit at `until` with whatever the text is by then. */
  | { type: 'wait'; until: number }
  | { type: 'skip' };

export function editDecision(c: EditClock): EditDecision {
  if (!c.changed) return { type: 'skip' };
  if (c.lastEditAt === undefined) return { type: 'edit' };
  const until = c.lastEditAt + Math.max(c.minIntervalMs, MIN_EDIT_INTERVAL_MS);
  return c.now >= until ? { type: 'edit' } : { type: 'wait', until };
}
