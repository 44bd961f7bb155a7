// The words the agent and the owner see: prompts for heartbeats and schedules, and the short true
// sentences sent when a scheduled job fails. Pure, so tests read them exactly.
import { dateFormat } from '../core/date-format.js';
import { formatDuration } from '../core/interval.js';
import { HEARTBEAT_TOKEN } from './token.js';

export const DEFAULT_HEARTBEAT_PROMPT =
  'This is a scheduled check-in from agentwire, not a message from the owner. ' +
  'Look at what you were asked to keep an eye on. ' +
  `If nothing needs the owner's attention right now, answer exactly ${HEARTBEAT_TOKEN} and nothing else. ` +
  'Otherwise reply with a short message for the owner.';

/** Check output handed to the agent is capped: it is untrusted text and goes into a prompt. */
export const MAX_CHECK_OUTPUT_CHARS = 8000;

export interface ScheduleRun {
  id: string;
  prompt: string;
  /** The nominal time of the occurrence. */
  occurrence: number;
  /** How late it fires; mentioned when late. */
  lateMs: number;
  late: boolean;
  checkOutput?: string;
  timeZone?: string;
  /** A second try of a one-shot whose first run was cut off by a stop. */
  retry?: boolean;
}

export function schedulePrompt(run: ScheduleRun): string {
  const parts: string[] = [];
  if (run.late) parts.push(lateNote(run));
  parts.push(run.prompt);
  if (run.checkOutput !== undefined) parts.push(checkBlock("this schedule's", run.checkOutput));
  return parts.join('\n\n');
}

/** The heartbeat's prompt, with what its pre-check printed after it. */
export function heartbeatPrompt(prompt: string, checkOutput?: string): string {
  return checkOutput === undefined ? prompt : `${prompt}\n\n${checkBlock("this heartbeat's", checkOutput)}`;
}

function checkBlock(whose: string, output: string): string {
  const out =
    output.length > MAX_CHECK_OUTPUT_CHARS
      ? `${output.slice(0, MAX_CHECK_OUTPUT_CHARS)}\n[… output cut at ${MAX_CHECK_OUTPUT_CHARS} characters]`
      : output;
  return `Output of ${whose} check command:\n\`\`\`\n${out.trimEnd()}\n\`\`\``;
}

export function lateNote(
  run: Pick<ScheduleRun, 'id' | 'occurrence' | 'lateMs' | 'timeZone' | 'retry'>,
): string {
  const why = run.retry
    ? 'because agentwire stopped while running it the first time'
    : 'because agentwire was not running then';
  return (
    `(Scheduled job "${run.id}" was due at ${formatInstant(run.occurrence, run.timeZone)} and runs ` +
    `${formatDuration(run.lateMs)} late, ${why}.)`
  );
}

/** "2026-07-01 09:00 Europe/Berlin": the occurrence in the schedule's zone (UTC when it has none). */
export function formatInstant(ms: number, timeZone?: string): string {
  const zone = timeZone ?? 'UTC';
  const parts = dateFormat('en-CA', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(ms));
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')} ${zone}`;
}

export type FailureReason =
  | { type: 'agent'; message: string }
  | { type: 'check_timeout'; seconds: number }
  | { type: 'check_failed'; message: string }
  | { type: 'no_session' }
  | { type: 'gave_up' };

/**
 * One short, true sentence for the chat; the agent's own message is already fit to show. Only a
 * recurring job is promised another run.
 */
export function failureText(label: string, r: FailureReason, recurring = true): string {
  switch (r.type) {
    case 'agent': {
      const again = recurring ? ' It will run again at its next time.' : '';
      return `${label} failed: ${r.message.replace(/[.\s]+$/, '')}.${again}`;
    }
    case 'check_timeout':
      return `${label}: its check command took longer than ${r.seconds} s and was stopped.`;
    case 'check_failed':
      return `${label}: its check command could not run (${r.message.replace(/[.\s]+$/, '')}).`;
    case 'no_session':
      return `${label} did not run: there is no agent session in this chat.`;
    case 'gave_up':
      return `${label} was not run: agentwire stopped twice while running it, so it was given up.`;
  }
}
