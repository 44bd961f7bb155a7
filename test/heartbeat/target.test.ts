import { describe, expect, it } from 'vitest';
import { checkHeartbeatTarget, checkScheduleTarget } from '../../src/heartbeat/target.js';

describe('targets', () => {
  it.each([
    ['whatsapp:+15551234567', true, true],
    ['twilio:+15551234567', true, true],
    ['twilio:whatsapp:+15551234567', true, true],
    ['console:local', true, true],
    ['whatsapp:120363025246125244@g.us', false, true],
    ['whatsapp:120363025246125244@G.US', false, true],
    ['whatsapp:status@broadcast', false, false],
    ['whatsapp:1234567890@newsletter', false, false],
    ['+15551234567', false, false],
    ['sms:+15551234567', false, false],
    ['whatsapp:', false, false],
    ['', false, false],
  ])('%j: heartbeat %s, schedule %s', (key, heartbeat, schedule) => {
    expect(checkHeartbeatTarget(key).ok).toBe(heartbeat);
    expect(checkScheduleTarget(key).ok).toBe(schedule);
  });

  it('names the group rule', () => {
    const r = checkHeartbeatTarget('whatsapp:120363025246125244@g.us');
    expect(r).toEqual({ ok: false, reason: 'group', message: 'a heartbeat is never sent to a group' });
  });

  it('no target at all', () => {
    expect(checkHeartbeatTarget(undefined)).toMatchObject({ ok: false, reason: 'none' });
  });
});
