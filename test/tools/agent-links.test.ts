// send_to_agent's pure decisions: which pairs may talk, where the answer goes, and the hop bound.
import { describe, expect, it } from 'vitest';
import { type AgentLinkEntry, agentPrompt, decideSend } from '../../src/tools/agent-links.js';

const LIST: AgentLinkEntry[] = [
  {
    name: 'work',
    talksTo: [
      { agent: 'home', replyTo: 'asker' },
      { agent: 'ops', replyTo: 'owner' },
    ],
  },
  { name: 'home', talksTo: [{ agent: 'work', replyTo: 'asker' }], ownerChat: 'telegram:42' },
  { name: 'ops', ownerChat: 'twilio:+15550001111' },
  { name: 'lonely', talksTo: [{ agent: 'nobody', replyTo: 'owner' }] },
];

describe('decideSend', () => {
  const cases: {
    name: string;
    from: string | undefined;
    to: string;
    hop: number;
    max?: number;
    role?: 'owner' | 'member' | 'guest';
    want: { ok: true; hop: number; replyTo: string; ownerChat?: string } | { ok: false; has: string };
  }[] = [
    {
      name: "an owner's run",
      from: 'work',
      to: 'home',
      role: 'owner',
      hop: 0,
      want: { ok: true, hop: 1, replyTo: 'asker' },
    },
    {
      name: "a member's run",
      from: 'work',
      to: 'home',
      role: 'member',
      hop: 0,
      want: { ok: false, has: 'this run answers a member' },
    },
    {
      name: "a guest's run",
      from: 'work',
      to: 'home',
      role: 'guest',
      hop: 0,
      want: { ok: false, has: "only the owner's messages" },
    },
    {
      name: 'a linked pair, asker',
      from: 'work',
      to: 'home',
      hop: 0,
      want: { ok: true, hop: 1, replyTo: 'asker' },
    },
    {
      name: 'a linked pair, owner',
      from: 'work',
      to: 'ops',
      hop: 0,
      want: { ok: true, hop: 1, replyTo: 'owner', ownerChat: 'twilio:+15550001111' },
    },
    {
      name: 'the reverse of a one-way link',
      from: 'ops',
      to: 'work',
      hop: 0,
      want: { ok: false, has: 'may not send to "work"' },
    },
    { name: 'a pair not linked', from: 'home', to: 'ops', hop: 0, want: { ok: false, has: 'allows: work' } },
    { name: 'to itself', from: 'work', to: 'work', hop: 0, want: { ok: false, has: 'itself' } },
    {
      name: 'a kind, not a named agent',
      from: 'claude',
      to: 'home',
      hop: 0,
      want: { ok: false, has: 'not a named agent' },
    },
    {
      name: 'an unknown caller',
      from: undefined,
      to: 'home',
      hop: 0,
      want: { ok: false, has: 'not a named agent' },
    },
    {
      name: 'owner with no ownerChat',
      from: 'lonely',
      to: 'nobody',
      hop: 0,
      want: { ok: false, has: 'no ownerChat' },
    },
    {
      name: 'the last hop allowed',
      from: 'home',
      to: 'work',
      hop: 2,
      max: 3,
      want: { ok: true, hop: 3, replyTo: 'asker' },
    },
    {
      name: 'one hop past the bound',
      from: 'work',
      to: 'home',
      hop: 3,
      max: 3,
      want: { ok: false, has: 'tools.maxAgentHops 3' },
    },
    {
      name: 'a bound of one',
      from: 'work',
      to: 'home',
      hop: 1,
      max: 1,
      want: { ok: false, has: 'already passed between agents 1 times' },
    },
  ];
  for (const c of cases)
    it(c.name, () => {
      const d = decideSend(LIST, { from: c.from, to: c.to, role: c.role, hop: c.hop, maxHops: c.max ?? 3 });
      if (c.want.ok) expect(d).toEqual(c.want);
      else {
        expect(d.ok).toBe(false);
        expect(d.ok ? '' : d.error).toContain(c.want.has);
      }
    });

  it('a loop A→B→A… stops at the bound', () => {
    let hop = 0;
    let from = 'work';
    let to = 'home';
    const hops: number[] = [];
    for (let i = 0; i < 10; i++) {
      const d = decideSend(LIST, { from, to, hop, maxHops: 3 });
      if (!d.ok) break;
      hops.push(d.hop);
      hop = d.hop;
      [from, to] = [to, from];
    }
    expect(hops).toEqual([1, 2, 3]);
  });
});

describe('agentPrompt', () => {
  it('names the asker, the hop and where the answer goes', () => {
    const p = agentPrompt('work', 'what is for dinner?', 2, 3, 'owner');
    expect(p).toContain('agent "work"');
    expect(p).toContain('hop 2 of at most 3');
    expect(p).toContain("your owner's chat");
    expect(p.endsWith('what is for dinner?')).toBe(true);
  });
});
