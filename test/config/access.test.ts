// The config checks of roles, named agents and routes: each refusal names its key and says why.
import { describe, expect, it } from 'vitest';
import { AGENT_KINDS } from '../../src/agents/registry.js';
import { parseConfigText } from '../../src/config/load.js';
import { redactConfig } from '../../src/config/redact.js';
import { configWarnings } from '../../src/config/warnings.js';

const check = (value: unknown) => parseConfigText(JSON.stringify(value), 'c.json5', {}, AGENT_KINDS);
const problems = (value: unknown) => {
  const r = check(value);
  return r.ok ? [] : r.problems.map((p) => `${p.path}: ${p.message}`);
};

describe('named agents and routes in config check', () => {
  it("today's configs load unchanged: agent and agents.<kind>, no list, no routes", () => {
    const r = check({ agent: { kind: 'claude', cwd: '/tmp/w' }, agents: { codex: { model: 'o3' } } });
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.config.agents.list).toEqual([]);
      expect(r.config.routes).toEqual([]);
      expect(r.config.access).toEqual({ owners: [], guests: [], guestCommands: ['help'] });
      expect(r.config.twilio.dm).toBe('allowlist');
    }
  });

  it('a list with routes loads', () => {
    const r = check({
      agents: {
        list: [
          { name: 'work', kind: 'claude', cwd: '/srv/work' },
          { name: 'home', kind: 'codex', workspace: 'per-chat', cliHome: 'chat' },
        ],
      },
      routes: [
        { channel: 'twilio', chats: ['+15550002'], agent: 'home', agents: ['work'] },
        { agent: 'work' },
      ],
    });
    expect(r.ok ? [] : r.problems).toEqual([]);
  });

  it('talksTo links load, replyTo defaults to asker', () => {
    const r = check({
      agents: {
        list: [
          { name: 'work', kind: 'claude', ownerChat: 'twilio:+15550001', talksTo: [{ agent: 'home' }] },
          {
            name: 'home',
            kind: 'codex',
            ownerChat: 'telegram:42',
            talksTo: [{ agent: 'work', replyTo: 'owner' }],
          },
        ],
      },
    });
    expect(r.ok ? [] : r.problems).toEqual([]);
    if (r.ok) {
      expect(r.config.agents.list[0]?.talksTo).toEqual([{ agent: 'home', replyTo: 'asker' }]);
      expect(r.config.tools.maxAgentHops).toBe(3);
    }
  });

  it.each<[string, unknown, string]>([
    [
      'a route to an unknown agent',
      { routes: [{ agent: 'nobody' }] },
      'routes.0.agent: unknown agent "nobody"',
    ],
    [
      "an unknown agent in a route's agents",
      {
        agents: { list: [{ name: 'work', kind: 'claude' }] },
        routes: [{ agent: 'work', agents: ['ghost'] }],
      },
      'routes.0.agents.0: unknown agent "ghost"',
    ],
    [
      'send_to_agent: a talksTo link to an unknown agent',
      {
        agents: { list: [{ name: 'work', kind: 'claude', talksTo: [{ agent: 'hme' }] }] },
      },
      'agents.list.0.talksTo.0.agent: unknown agent "hme" (named agents: work)',
    ],
    [
      'send_to_agent: a link to a kind, not a named agent',
      {
        agents: { list: [{ name: 'work', kind: 'claude', talksTo: [{ agent: 'codex' }] }] },
      },
      'agents.list.0.talksTo.0.agent: unknown agent "codex"',
    ],
    [
      'send_to_agent: replyTo owner to an agent without ownerChat',
      {
        agents: {
          list: [
            { name: 'work', kind: 'claude', talksTo: [{ agent: 'home', replyTo: 'owner' }] },
            { name: 'home', kind: 'codex' },
          ],
        },
      },
      'agents.list.0.talksTo.0.replyTo: is \'owner\', but agent "home" has no ownerChat',
    ],
    [
      'a route that can never match',
      { routes: [{ agent: 'claude' }, { channel: 'twilio', agent: 'claude' }] },
      'routes.1: can never match: route 0 before it takes every chat it names',
    ],
    [
      'two agents sharing one folder',
      {
        agents: {
          list: [
            { name: 'a', kind: 'claude', cwd: '/srv/x' },
            { name: 'b', kind: 'codex', cwd: '/srv/x/' },
          ],
        },
      },
      "agents.list.1.cwd: is also agents.list[0] (a)'s folder",
    ],
    [
      'a named agent in the folder of agent',
      { agent: { cwd: '/srv/x' }, agents: { list: [{ name: 'a', kind: 'codex', workspace: '/srv/x' }] } },
      "agents.list.0.cwd: is also agent's folder",
    ],
    [
      'a duplicate name',
      {
        agents: {
          list: [
            { name: 'a', kind: 'claude' },
            { name: 'a', kind: 'codex' },
          ],
        },
      },
      'agents.list.1.name: "a" is already agents.list[0]',
    ],
    [
      'a name that is a kind',
      { agents: { list: [{ name: 'codex', kind: 'claude' }] } },
      'agents.list.0.name: "codex" is the name of a CLI kind',
    ],
    [
      'an unknown kind',
      { agents: { list: [{ name: 'a', kind: 'clade' }] } },
      'agents.list.0.kind: unknown agent kind "clade"; did you mean claude?',
    ],
    [
      'per-chat with one global session',
      { agent: { workspace: 'per-chat' }, sessions: { scope: 'global' } },
      "agent.workspace: is 'per-chat', but sessions.scope is 'global'",
    ],
    [
      'cliHome chat without per-chat',
      { agent: { cliHome: 'chat' } },
      "agent.cliHome: is 'chat', which needs workspace 'per-chat'",
    ],
    ['"*" as an owner', { access: { owners: ['*'] } }, 'access.owners.0: names one sender'],
    ['an unknown guest command', { access: { guestCommands: ['sudo'] } }, 'access.guestCommands.0:'],
    ['an unknown dm policy', { twilio: { dm: 'all' } }, 'twilio.dm:'],
  ])('refuses %s', (_n, value, want) => {
    expect(problems(value).join('\n')).toContain(want);
  });

  it('two agents may share a folder when each chat gets its own', () => {
    const value = {
      agents: {
        list: [
          { name: 'a', kind: 'claude', cwd: '/srv/x', workspace: 'per-chat' },
          { name: 'b', kind: 'codex', cwd: '/srv/x' },
        ],
      },
    };
    expect(problems(value)).toEqual([]);
  });

  it('a heartbeat may name a named agent', () => {
    const value = { agents: { list: [{ name: 'cheap', kind: 'codex' }] }, heartbeat: { agent: 'cheap' } };
    expect(problems(value)).toEqual([]);
  });

  it("a named agent's env is redacted by config print", () => {
    const r = check({ agents: { list: [{ name: 'a', kind: 'claude', env: { API_KEY: 'sekrit-value' } }] } });
    expect(r.ok).toBe(true);
    if (r.ok) expect(JSON.stringify(redactConfig(r.config))).not.toContain('sekrit-value');
  });
});

describe('configWarnings', () => {
  const warnings = (value: unknown) => {
    const r = check(value);
    if (!r.ok) throw new Error(r.problems.map((p) => p.message).join('; '));
    return configWarnings(r.config).map((w) => w.path);
  };
  it.each<[string, unknown, string[]]>([
    ['nothing open', { twilio: { enabled: true, allowFrom: ['+15550001'] } }, []],
    ['dm everyone', { twilio: { enabled: true, dm: 'everyone' } }, ['twilio.dm']],
    [
      'allowFrom "*"',
      { telegram: { enabled: true, allowFrom: '*', botToken: '123:abc' } },
      ['telegram.allowFrom'],
    ],
    ['a channel that is off', { twilio: { enabled: false, dm: 'everyone' } }, []],
    ['dm none with "*": closed', { twilio: { enabled: true, dm: 'none', allowFrom: '*' } }, []],
  ])('%s', (_n, value, want) => {
    expect(warnings(value)).toEqual(want);
  });
});
