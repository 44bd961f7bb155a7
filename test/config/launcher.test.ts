// `agents.launcher`: a boolean, on by default, that is not taken for an agent kind, and whose
// wrong type is refused with the key named.
import { describe, expect, it } from 'vitest';
import { AGENT_KINDS } from '../../src/agents/registry.js';
import { parseConfigText } from '../../src/config/load.js';
import { agentKindSettings } from '../../src/config/schema.js';

const parse = (text: string) => parseConfigText(text, 'c.json5', {}, AGENT_KINDS);

describe('agents.launcher', () => {
  it.each([
    ['{}', true],
    ['{agents: {launcher: true}}', true],
    ['{agents: {launcher: false, codex: {mode: "cold"}}}', false],
  ])('%s: %s', (text, want) => {
    const r = parse(text);
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.config.agents.launcher).toBe(want);
    // A setting, not a CLI kind's overrides.
    expect(agentKindSettings(r.config.agents).map(([k]) => k)).not.toContain('launcher');
  });

  it('refuses a value that is not a boolean, naming the key', () => {
    const r = parse('{agents: {launcher: "yes"}}');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(JSON.stringify(r.problems)).toContain('agents.launcher');
  });
});
