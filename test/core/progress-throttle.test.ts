import { describe, expect, it } from 'vitest';
import {
  type EditClock,
  type EditDecision,
  editDecision,
  STATUS_DELAY_MS,
  type StartClock,
  type StartDecision,
  startDecision,
} from '../../src/core/progress-throttle.js';

describe('editDecision', () => {
  const rows: [string, EditClock, EditDecision][] = [
    ['unchanged text', { lastEditAt: 0, now: 10_000, minIntervalMs: 1000, changed: false }, { type: 'skip' }],
    [
      'unchanged, never sent',
      { lastEditAt: undefined, now: 0, minIntervalMs: 1000, changed: false },
      { type: 'skip' },
    ],
    ['first text', { lastEditAt: undefined, now: 5, minIntervalMs: 3000, changed: true }, { type: 'edit' }],
    [
      'too soon',
      { lastEditAt: 1000, now: 1500, minIntervalMs: 1000, changed: true },
      { type: 'wait', until: 2000 },
    ],
    ['just in time', { lastEditAt: 1000, now: 2000, minIntervalMs: 1000, changed: true }, { type: 'edit' }],
    [
      'the platform is slower',
      { lastEditAt: 0, now: 1500, minIntervalMs: 3000, changed: true },
      { type: 'wait', until: 3000 },
    ],
    [
      'a platform faster than the floor',
      { lastEditAt: 0, now: 200, minIntervalMs: 100, changed: true },
      { type: 'wait', until: 1000 },
    ],
  ];
  it.each(rows)('%s', (_, clock, decision) => expect(editDecision(clock)).toEqual(decision));

  it('30 tool calls in 10 s make one send and at most 10 edits, the last showing the last call', () => {
    // The feed's loop (queue/progress-feed.ts) in miniature: each event asks; a wait edits at `until`.
    const sent: { at: number; text: string }[] = [];
    let lastEditAt: number | undefined;
    let shown = '';
    let wake: number | undefined;
    const ask = (now: number, text: string) => {
      const d = editDecision({ lastEditAt, now, minIntervalMs: 1000, changed: text !== shown });
      if (d.type === 'edit') {
        sent.push({ at: now, text });
        lastEditAt = now;
        shown = text;
        wake = undefined;
      } else if (d.type === 'wait') wake = d.until;
    };
    let latest = '';
    for (let i = 0; i < 30; i++) {
      const at = Math.round((i * 10_000) / 30);
      while (wake !== undefined && wake <= at) ask(wake, latest);
      latest = `tool ${i}`;
      ask(at, latest);
    }
    while (wake !== undefined) ask(wake, latest);
    expect(sent.length - 1).toBeLessThanOrEqual(10);
    expect(sent.length).toBeGreaterThan(5);
    expect(sent.at(-1)?.text).toBe('tool 29');
  });
});

describe('startDecision', () => {
  const rows: [string, StartClock, StartDecision][] = [
    ['the first tool call', { firstEventAt: 0, now: 10, tools: 1, asking: false }, { type: 'start' }],
    ['a question', { firstEventAt: 0, now: 10, tools: 0, asking: true }, { type: 'start' }],
    [
      'text soon after the first event (a short answer)',
      { firstEventAt: 1000, now: 2500, tools: 0, asking: false },
      { type: 'wait', until: 1000 + STATUS_DELAY_MS },
    ],
    [
      'just before the delay',
      { firstEventAt: 0, now: STATUS_DELAY_MS - 1, tools: 0, asking: false },
      { type: 'wait', until: STATUS_DELAY_MS },
    ],
    [
      'the delay passed',
      { firstEventAt: 0, now: STATUS_DELAY_MS, tools: 0, asking: false },
      { type: 'start' },
    ],
  ];
  it.each(rows)('%s', (_, clock, decision) => expect(startDecision(clock)).toEqual(decision));

  it('takes another delay', () => {
    expect(startDecision({ firstEventAt: 0, now: 100, tools: 0, asking: false }, 50)).toEqual({
      type: 'start',
    });
    expect(startDecision({ firstEventAt: 0, now: 10, tools: 0, asking: false }, 50)).toEqual({
      type: 'wait',
      until: 50,
    });
  });
});
