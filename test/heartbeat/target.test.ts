import { describe, expect, it } from 'vitest';
import type { ChannelPlugin } from '../../src/channels/plugin.js';
import { checkHeartbeatTarget, checkScheduleTarget } from '../../src/heartbeat/target.js';

describe('targets (the registered channels decide)', () => {
  it.each([
    ['whatsapp:+15551234567', true, true],
    ['twilio:+15551234567', true, true],
    ['twilio:whatsapp:+15551234567', true, true],
    ['console:local', true, true],
    ['whatsapp:120363025246125244@g.us', false, true],
    ['whatsapp:120363025246125244@G.US', false, true],
    ['whatsapp:status@broadcast', false, false],
    ['whatsapp:1234567890@newsletter', false, false],
    ['whatsapp:not a number', false, false],
    ['twilio:15551234567', false, false],
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

  // The rules come from the plugin, not from heartbeat/: a channel nobody here knows brings its own.
  const pigeon: ChannelPlugin = {
    name: 'pigeon',
    displayName: 'Pigeon',
    enabled: () => true,
    create: async () => {
      throw new Error('not started here');
    },
    isChatId: (id) => /^(loft|flock|crowd)-\d+$/.test(id),
    chatKind: (id) => (id.startsWith('flock-') ? 'group' : id.startsWith('crowd-') ? 'broadcast' : 'direct'),
    exampleChatId: 'loft-1',
    textRules: () => ({ limit: 100, fences: false }),
  };
  it.each([
    ['pigeon:loft-7', true, true],
    ['pigeon:flock-7', false, true],
    ['pigeon:crowd-7', false, false],
    ['pigeon:7', false, false],
    ['whatsapp:+15551234567', false, false],
  ])('a plug-in channel: %j heartbeat %s, schedule %s', (key, heartbeat, schedule) => {
    expect(checkHeartbeatTarget(key, [pigeon]).ok).toBe(heartbeat);
    expect(checkScheduleTarget(key, [pigeon]).ok).toBe(schedule);
  });
});
