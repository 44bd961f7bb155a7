import { describe, expect, it } from 'vitest';
import type { ChannelState } from '../../../src/channels/types.js';
import { decideAlert, type Incident } from '../../../src/ops/alert/policy.js';

const T = Date.UTC(2026, 0, 5, 9);
const MIN = 60_000;
const degraded: ChannelState = {
  type: 'degraded',
  since: T,
  lastError: 'connection closed (503)',
  retries: 13,
};
const relink: ChannelState = {
  type: 'relink_required',
  since: T,
  reason: 'WhatsApp logged this device out (401).',
};
const connected: ChannelState = { type: 'connected', since: T };
const open: Incident = { kind: 'degraded', since: T };
const told: Incident = { ...open, alertedAt: T + 10 * MIN };

describe('decideAlert (table)', () => {
  it.each([
    ['degraded, no incident', degraded, undefined, 0, 'open'],
    ['relink, no incident', relink, undefined, 0, 'open'],
    ['degraded 9 min', degraded, open, 9, 'none'],
    ['degraded 10 min', degraded, open, 10, 'alert'],
    ['relink 10 min', relink, { kind: 'relink_required', since: T } as Incident, 10, 'alert'],
    ['degraded, already told', degraded, told, 60, 'none'],
    ['connected, told', connected, told, 61, 'recover'],
    ['connected, never told', connected, open, 5, 'close'],
    ['connected, no incident', connected, undefined, 0, 'none'],
    // A restart mid-incident: stopped, then connecting, neither closes nor reopens it.
    ['stopped, told', { type: 'stopped' } as ChannelState, told, 30, 'none'],
    ['connecting, told', { type: 'connecting', since: T } as ChannelState, told, 30, 'none'],
    [
      'connecting unreachable, no incident',
      { type: 'connecting', since: T, lastError: 'x', retries: 3 } as ChannelState,
      undefined,
      30,
      'none',
    ],
  ] as const)('%s → %s', (_what, state, incident, minutes, type) => {
    expect(decideAlert({ state, incident, now: T + minutes * MIN, alertAfterMs: 10 * MIN }).type).toBe(type);
  });

  it('says what is wrong and what to do, without numbers', () => {
    const d = decideAlert({
      state: { ...relink, reason: 'WhatsApp refused +15551234567 (403).' },
      incident: { kind: 'relink_required', since: T },
      now: T + 12 * MIN,
      alertAfterMs: 10 * MIN,
    });
    expect(d.type === 'alert' && d.text).toMatch(
      /^agentwire: WhatsApp needs to be linked again \(for 12 min\): .*agentwire login/,
    );
    expect(d.type === 'alert' && d.text).not.toContain('5551234567');
  });
});
