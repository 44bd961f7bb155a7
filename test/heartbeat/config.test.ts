// Bad heartbeat and schedule settings are config errors that name the key, at load. Whether a
// target's channel exists and takes its chat id is asked of the channel plug-ins, through the check
// every command loads the config with (cli/context.ts).
import { describe, expect, it } from 'vitest';
import { AGENT_KINDS } from '../../src/agents/registry.js';
import { parseConfigText } from '../../src/config/load.js';
import { configProblems } from '../../src/heartbeat/target.js';

const problems = (text: string) => {
  const r = parseConfigText(text, 'c.json5', {}, AGENT_KINDS, configProblems);
  return r.ok ? [] : r.problems.map((p) => `${p.path}: ${p.message}`);
};

describe('heartbeat and schedules config', () => {
  it('accepts the worked examples', () => {
    const r = parseConfigText(
      `{
        heartbeat: { everyMinutes: 30, target: "whatsapp:+15551234567",
                     activeHours: { start: "08:00", end: "22:00", timeZone: "Europe/Berlin" } },
        schedules: [
          { id: "plan", cron: "0 8 * * 1-5", timeZone: "Europe/Berlin", target: "whatsapp:+15551234567",
            prompt: "Send me the day's plan." },
          { id: "mail", every: "15m", target: "whatsapp:+15551234567", prompt: "Summarise.",
            check: ["mailcheck", "--new"], checkTimeoutSeconds: 20 },
          { id: "dentist", at: "2026-07-01T09:00", timeZone: "Europe/Berlin", target: "twilio:+15551234567",
            prompt: "Remind me." },
          { id: "team", cron: "0 9 * * 1", target: "whatsapp:120363025246125244@g.us", prompt: "Weekly note." },
        ],
      }`,
      'c.json5',
      {},
    );
    expect(r.ok).toBe(true);
  });

  it('without WhatsApp, a heartbeat needs a target only when everyMinutes asks for one', () => {
    expect(problems('{whatsapp: {enabled: false}}')).toEqual([]);
    expect(problems('{whatsapp: {enabled: false}, heartbeat: {everyMinutes: 0}}')).toEqual([]);
    expect(
      problems('{whatsapp: {enabled: false}, heartbeat: {everyMinutes: 15, target: "twilio:+15551234567"}}'),
    ).toEqual([]);
  });

  it.each([
    [
      '{heartbeat: {target: "whatsapp:120363025246125244@g.us"}}',
      'heartbeat.target: a heartbeat is never sent to a group',
    ],
    ['{heartbeat: {target: "+15551234567"}}', 'heartbeat.target: "+15551234567" is not a chat key'],
    [
      '{whatsapp: {enabled: false}, heartbeat: {everyMinutes: 15}}',
      'heartbeat.target: heartbeat.everyMinutes is set but there is no chat to check in with',
    ],
    [
      '{heartbeat: {activeHours: {start: "08:00", end: "22:00", timeZone: "Berlin"}}}',
      'heartbeat.activeHours.timeZone: unknown time zone "Berlin"',
    ],
    [
      '{heartbeat: {activeHours: {start: "08:00", end: "08:00"}}}',
      'heartbeat.activeHours.end: same as start',
    ],
    ['{heartbeat: {activeHours: {start: "8:00", end: "22:00"}}}', 'heartbeat.activeHours.start: HH:MM'],
    [
      '{schedules: [{id: "a", cron: "0 8 * * *", timeZone: "Mars/Olympus", target: "whatsapp:+15551234567", prompt: "p"}]}',
      'schedules.0.timeZone: unknown time zone "Mars/Olympus"',
    ],
    [
      '{schedules: [{id: "a", cron: "0 25 * * *", target: "whatsapp:+15551234567", prompt: "p"}]}',
      'schedules.0.cron: invalid cron expression',
    ],
    [
      '{schedules: [{id: "a", every: "10s", target: "whatsapp:+15551234567", prompt: "p"}]}',
      'schedules.0.every: "10s" is shorter than the minimum of 1m',
    ],
    [
      '{schedules: [{id: "a", at: "next friday", target: "whatsapp:+15551234567", prompt: "p"}]}',
      'schedules.0.at: "next friday" is not a time',
    ],
    [
      '{schedules: [{id: "a", every: "1h", cron: "0 8 * * *", target: "whatsapp:+15551234567", prompt: "p"}]}',
      'schedules.0: exactly one of cron, every or at is required',
    ],
    [
      '{schedules: [{id: "a", every: "1h", target: "whatsapp:status@broadcast", prompt: "p"}]}',
      'schedules.0.target: a broadcast list',
    ],
    [
      '{schedules: [{id: "a", every: "1h", target: "sms:+15551234567", prompt: "p"}]}',
      'schedules.0.target: "sms" is not a channel',
    ],
    [
      '{heartbeat: {target: "twilio:15551234567"}}',
      'heartbeat.target: "15551234567" is not a Twilio chat id',
    ],
    [
      '{schedules: [{id: "a", every: "1h", target: "whatsapp:+15551234567", prompt: "p"}, {id: "a", every: "2h", target: "whatsapp:+15551234567", prompt: "p"}]}',
      'schedules.1.id: duplicate id "a"',
    ],
  ])('%s', (text, expected) => {
    expect(problems(text).some((p) => p.startsWith(expected))).toBe(true);
  });

  it('a channel problem points at the line of its key, like a schema problem', () => {
    const r = parseConfigText(
      '{\n  heartbeat: {\n    target: "sms:+15551234567",\n  },\n}',
      'c.json5',
      {},
      AGENT_KINDS,
      configProblems,
    );
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems[0]).toMatchObject({ path: 'heartbeat.target', line: 3 });
  });
});
