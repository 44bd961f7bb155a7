import { describe, expect, it } from 'vitest';
import { AGENT_KINDS } from '../../src/agents/registry.js';
import { parseConfigText } from '../../src/config/load.js';
import { progressSettings } from '../../src/config/schema-progress.js';

const load = (text: string) => parseConfigText(text, 'c.json5', {}, AGENT_KINDS);

describe('progress per channel section', () => {
  it('is `status` by default on every channel (one that cannot edit never starts one), ending on the summary', () => {
    const r = load('{}');
    if (!r.ok) throw new Error('the config was refused');
    for (const channel of ['whatsapp', 'twilio', 'telegram', 'slack', 'discord', 'console'])
      expect(progressSettings(r.config, channel)).toEqual({ mode: 'status', end: 'summary' });
    expect(r.config.telegram).toMatchObject({ progress: 'status', progressEnd: 'summary' });
  });

  it.each([
    ['{telegram: {progress: "status"}}', 'telegram', { mode: 'status', end: 'summary' }],
    [
      '{whatsapp: {progress: "stream", progressEnd: "delete"}}',
      'whatsapp',
      { mode: 'stream', end: 'delete' },
    ],
    ['{console: {progress: "off"}}', 'twilio', { mode: 'status', end: 'summary' }],
    ['{twilio: {progress: "off", progressEnd: "delete"}}', 'twilio', undefined],
    ['{}', 'slack', { mode: 'status', end: 'summary' }],
    ['{slack: {progress: "off"}}', 'slack', undefined],
    ['{discord: {progressEnd: "delete"}}', 'discord', { mode: 'status', end: 'delete' }],
    ['{slack: {progress: "status"}}', 'slack', { mode: 'status', end: 'summary' }],
    ['{discord: {progress: "stream"}}', 'discord', { mode: 'stream', end: 'summary' }],
  ])('%s → %s', (text, channel, settings) => {
    const r = load(text);
    if (!r.ok) throw new Error('the config was refused');
    expect(progressSettings(r.config, channel)).toEqual(settings);
  });

  it.each([
    ['{telegram: {progress: "loud"}}', 'telegram.progress'],
    ['{twilio: {progressEnd: "keep"}}', 'twilio.progressEnd'],
    ['{discord: {progress: "on"}}', 'discord.progress'],
  ])('refuses %s naming the key', (text, key) => {
    const r = load(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems).toContainEqual(expect.objectContaining({ path: key, line: 1 }));
  });
});
