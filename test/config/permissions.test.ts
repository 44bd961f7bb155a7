// agent.permissions / agents.<kind>.permissions: default deny, the per-kind key wins, the
// resolved agent carries it to the request, and `ask` for a cold agent is refused at file, line and key.
import { describe, expect, it } from 'vitest';
import { AGENT_KINDS } from '../../src/agents/registry.js';
import { agentRequest, resolveAgent } from '../../src/agents/resolve.js';
import { parseConfigText } from '../../src/config/load.js';
import { permissionOf } from '../../src/drivers/factory.js';

const parse = (text: string) => parseConfigText(text, 'c.json5', {}, AGENT_KINDS);
const paths = {
  home: '/tmp/aw-perm-test',
  configFile: '/tmp/aw-perm-test/agentwire.json5',
  workspace: '/tmp/aw-perm-test/ws',
  agentState: '/tmp/aw-perm-test/agents',
} as never;
const resolved = (text: string, kind?: string) => {
  const r = parse(text);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return resolveAgent(r.config, paths, kind as never, { createDirs: false });
};

describe('permissions config', () => {
  it('defaults to deny, as today (what a cold run does), and the driver gets deny', () => {
    for (const kind of ['claude', 'codex', 'pi', 'opencode', 'gemini']) {
      const a = resolved('{}', kind);
      expect(a.permissions).toBe('deny');
      expect(permissionOf(agentRequest(a, 'x', { type: 'new' }))).toBe('deny');
    }
    expect(permissionOf({})).toBe('deny');
  });

  it('agent.permissions is the agent kind’s; agents.<kind>.permissions wins; the request carries it', () => {
    const text =
      "{agent: {kind: 'codex', permissions: 'ask'}, agents: {claude: {permissions: 'allow'}, pi: {}}}";
    const codex = resolved(text, 'codex');
    expect(codex.permissions).toBe('ask');
    expect(agentRequest(codex, 'x', { type: 'new' }).permissions).toBe('ask');
    expect(resolved(text, 'claude').permissions).toBe('allow');
    // agent.permissions is not a default for other kinds, as agent.mode is not.
    expect(resolved(text, 'pi').permissions).toBe('deny');
    expect(
      resolved("{agent: {permissions: 'ask'}, agents: {claude: {permissions: 'deny'}}}").permissions,
    ).toBe('deny');
  });

  it.each([
    "{agent: {permissions: 'ask'}}",
    "{agent: {mode: 'cold', permissions: 'ask'}, agents: {claude: {mode: 'warm'}}}",
    "{agent: {mode: 'cold', permissions: 'ask'}, agents: {claude: {permissions: 'deny'}}}",
    "{agent: {mode: 'cold'}, agents: {codex: {permissions: 'ask'}}}",
    "{agents: {codex: {mode: 'cold', permissions: 'allow'}}}",
  ])('accepts %s', (text) => {
    const r = parse(text);
    expect(r.ok, r.ok ? '' : JSON.stringify(r.problems)).toBe(true);
  });

  it.each([
    ["{agent: {\n  mode: 'cold',\n  permissions: 'ask'}}", 'agent.permissions', 3, 'agent.mode'],
    [
      "{agent: {permissions: 'ask'},\n agents: {\n  claude: {mode: 'cold'}}}",
      'agent.permissions',
      1,
      'agents.claude.mode',
    ],
    [
      "{agents: {\n  codex: {\n    mode: 'cold',\n    permissions: 'ask'}}}",
      'agents.codex.permissions',
      4,
      'agents.codex.mode',
    ],
    [
      "{agent: {kind: 'pi', mode: 'cold'},\n agents: {pi: {\n  permissions: 'ask'}}}",
      'agents.pi.permissions',
      3,
      'agent.mode',
    ],
    ["{agent: {permissions: 'sometimes'}}", 'agent.permissions', 1, ''],
  ])('refuses %j at %s (line %i), naming %s and why', (text, path, line, coldKey) => {
    const r = parse(text);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const p = r.problems.find((x) => x.path === path);
    expect(p, JSON.stringify(r.problems)).toBeDefined();
    expect(p?.file).toBe('c.json5');
    expect(p?.line).toBe(line);
    expect(p?.message).toContain(coldKey);
    if (coldKey) expect(p?.message).toMatch(/cannot wait for an answer from the phone/);
  });

  it.each([
    ["{agent: {permissions: 'ask'},\n permissions: {\n  approvers: []}}", false],
    ["{agents: {codex: {permissions: 'ask'}},\n permissions: {\n  approvers: []}}", false],
    ["{agent: {permissions: 'ask'}, permissions: {approvers: ['+15551234567']}}", true],
    ["{agent: {permissions: 'deny'}, permissions: {approvers: []}}", true],
    ["{agent: {permissions: 'ask'}}", true],
  ])('an empty approvers list with an agent that asks: %j accepted %s', (text, ok) => {
    const r = parse(text);
    expect(r.ok, r.ok ? '' : JSON.stringify(r.problems)).toBe(ok);
    if (r.ok) return;
    const p = r.problems.find((x) => x.path === 'permissions.approvers');
    expect(p?.line).toBe(3);
    expect(p?.message).toMatch(/nobody could answer/);
  });
});
