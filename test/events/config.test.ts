// The config of events: hook secrets are redacted, a hook's or target's chat is checked against the
// channels at load, and the schema refuses what the docs say it refuses.
import { describe, expect, it } from 'vitest';
import { agentKindProblems } from '../../src/config/agent-kinds.js';
import { redactConfig } from '../../src/config/redact.js';
import { configSchema } from '../../src/config/schema.js';
import { configTargetProblems } from '../../src/heartbeat/target.js';

const hook = { secret: 'a-very-long-hook-secret', chat: 'ci', prompt: 'CI says {event}' };

describe('events config', () => {
  it('a hook secret is redacted in config print', () => {
    const c = configSchema.parse({ targets: { ci: 'telegram:1' }, hooks: { github: hook } });
    expect(JSON.stringify(redactConfig(c))).not.toContain('a-very-long-hook-secret');
    expect((redactConfig(c) as typeof c).hooks.github?.secret).toBe('[redacted]');
  });

  it('a hook may name a target or a chat key; anything else is refused at load, naming the key', () => {
    const c = configSchema.parse({
      targets: { ci: 'telegram:1', bad: 'telegram:abc' },
      hooks: { a: hook, b: { ...hook, chat: 'twilio:+15551234567' }, c: { ...hook, chat: 'nobody' } },
    });
    const problems = configTargetProblems(c);
    expect(problems.map((p) => p.path.join('.'))).toEqual(['targets.bad', 'hooks.c.chat']);
  });

  const refused: [string, object][] = [
    ['a short secret', { hooks: { a: { ...hook, secret: 'short' } } }],
    ['a hook name with a slash', { hooks: { 'a/b': hook } }],
    ['an unknown hook key', { hooks: { a: { ...hook, path: '/x' } } }],
    ['a target that is no chat key', { targets: { ci: 'telegram' } }],
    ['an unknown events key', { events: { folder: '/tmp' } }],
    ['a tiny file cap', { events: { maxFileBytes: 10 } }],
  ];
  it.each(refused)('refuses %s', (_n, raw) => {
    expect(configSchema.safeParse(raw).success).toBe(false);
  });
});

describe('a hook naming an agent', () => {
  it('an unknown kind is refused at load with the nearest name', () => {
    const c = configSchema.parse({ targets: { ci: 'telegram:1' }, hooks: { a: { ...hook, agent: 'codx' } } });
    expect(agentKindProblems(c, ['claude', 'codex'])).toEqual([
      { path: ['hooks', 'a', 'agent'], message: expect.stringContaining('did you mean codex?') },
    ]);
  });
});
