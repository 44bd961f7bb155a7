import { describe, expect, it } from 'vitest';
import {
  DEFAULT_HEARTBEAT_PROMPT,
  failureText,
  formatInstant,
  MAX_CHECK_OUTPUT_CHARS,
  schedulePrompt,
} from '../../src/heartbeat/prompt.js';

const at = (iso: string) => Date.parse(iso);

describe('prompts', () => {
  it('the default heartbeat prompt asks for exactly HEARTBEAT_OK', () => {
    expect(DEFAULT_HEARTBEAT_PROMPT).toContain('scheduled check-in');
    expect(DEFAULT_HEARTBEAT_PROMPT).toContain('answer exactly HEARTBEAT_OK');
  });

  it('an on-time schedule is just its prompt', () => {
    const p = schedulePrompt({ id: 'plan', prompt: 'Send the plan.', occurrence: 0, lateMs: 0, late: false });
    expect(p).toBe('Send the plan.');
  });

  it('a late schedule says when it was due and how late it is', () => {
    const p = schedulePrompt({
      id: 'dentist',
      prompt: 'Remind me of the dentist.',
      occurrence: at('2026-07-01T07:00:00Z'),
      lateMs: 3 * 3_600_000 + 12 * 60_000,
      late: true,
      timeZone: 'Europe/Berlin',
    });
    expect(p).toBe(
      '(Scheduled job "dentist" was due at 2026-07-01 09:00 Europe/Berlin and runs 3 h 12 min late, ' +
        'because agentwire was not running then.)\n\nRemind me of the dentist.',
    );
  });

  it('check output follows the prompt, fenced and capped', () => {
    const p = schedulePrompt({
      id: 'mail',
      prompt: 'Tell me about these.',
      occurrence: 0,
      lateMs: 0,
      late: false,
      checkOutput: '2 new mails\n',
    });
    expect(p).toBe("Tell me about these.\n\nOutput of this schedule's check command:\n```\n2 new mails\n```");
    const long = schedulePrompt({
      id: 'mail',
      prompt: 'x',
      occurrence: 0,
      lateMs: 0,
      late: false,
      checkOutput: 'a'.repeat(MAX_CHECK_OUTPUT_CHARS + 50),
    });
    expect(long).toContain(`[… output cut at ${MAX_CHECK_OUTPUT_CHARS} characters]`);
    expect(long.length).toBeLessThan(MAX_CHECK_OUTPUT_CHARS + 200);
  });

  it('formats instants in the zone, UTC by default', () => {
    expect(formatInstant(at('2026-07-01T23:30:00Z'), 'Asia/Tokyo')).toBe('2026-07-02 08:30 Asia/Tokyo');
    expect(formatInstant(at('2026-07-01T23:30:00Z'))).toBe('2026-07-01 23:30 UTC');
  });

  it('a one-shot is not promised another run', () => {
    expect(
      failureText('Scheduled job "x"', { type: 'agent', message: 'The agent exited with code 1' }, false),
    ).toBe('Scheduled job "x" failed: The agent exited with code 1.');
  });

  it.each([
    [
      { type: 'agent', message: 'The agent timed out after 600 s.' },
      'Scheduled job "x" failed: The agent timed out after 600 s. It will run again at its next time.',
    ],
    [
      { type: 'check_timeout', seconds: 60 },
      'Scheduled job "x": its check command took longer than 60 s and was stopped.',
    ],
    [
      { type: 'check_failed', message: 'mailcheck was not found' },
      'Scheduled job "x": its check command could not run (mailcheck was not found).',
    ],
    [{ type: 'no_session' }, 'Scheduled job "x" did not run: there is no agent session in this chat.'],
    [
      { type: 'gave_up' },
      'Scheduled job "x" was not run: agentwire stopped twice while running it, so it was given up.',
    ],
  ] as const)('failure text %j', (reason, text) => {
    expect(failureText('Scheduled job "x"', reason)).toBe(text);
  });
});

describe('late note', () => {
  it('says why a second try of a one-shot is late', () => {
    const p = schedulePrompt({
      id: 'x',
      prompt: 'Do it.',
      occurrence: Date.parse('2026-07-01T09:00:00Z'),
      lateMs: 2 * 60_000,
      late: true,
      retry: true,
    });
    expect(p).toBe(
      '(Scheduled job "x" was due at 2026-07-01 09:00 UTC and runs 2 min late, because agentwire stopped ' +
        'while running it the first time.)\n\nDo it.',
    );
  });
});
