// When a status message may be edited again. Platforms limit edits (Telegram and Slack about one a
// second per chat, Discord five in five seconds) and a phone buzzes or redraws on each, so a burst
// of tool calls must become a few edits showing the latest line, never a queue of stale ones.
// Nor is a status message sent for a short answer: it starts at the first tool call or after a delay.

/** No platform is edited faster than this, whatever it allows: 10 s of tool calls make at most 10 edits. */
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

/**
 * How long a run works before its status message appears when no tool was called. A chat answer
 * comes in a few seconds, and the typing indicator already covers that (Telegram shows it 5 s per
 * call, Discord about 10 s); a status message posted for it would only flash and turn into "0 tools,
 * 3 s" above the answer, one more notification for nothing. Past 5 s the person starts to wonder
 * whether anything happens, so from then on a line that says what the agent does is worth it.
 * The delay counts from the agent's first event, not the run's start: a CLI that is silent while it
 * works and prints everything at the end must not get a status message flashed just before its answer.
 */
export const STATUS_DELAY_MS = 5000;

export interface StartClock {
  /** When the run's first progress event came. */
  firstEventAt: number;
  now: number;
  /** Tool calls begun so far. */
  tools: number;
  /** The agent waits for the person (an approval or its own question). */
  asking: boolean;
}

export type StartDecision = { type: 'start' } | { type: 'wait'; until: number };

/** Whether the status message is sent now: at the first tool call or question, else after the delay. */
export function startDecision(c: StartClock, delayMs: number = STATUS_DELAY_MS): StartDecision {
  if (c.tools > 0 || c.asking) return { type: 'start' };
  const until = c.firstEventAt + delayMs;
  return c.now >= until ? { type: 'start' } : { type: 'wait', until };
}
