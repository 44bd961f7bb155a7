// send_to_agent's decisions, pure (table-tested in test/tools/agent-links.test.ts): whether the
// calling agent may reach the one it names (only links written in its `talksTo` hold, so a config
// that says nothing lets no agent reach another), where the answer goes, and the hop bound that
// ends a loop between agents (A asks B, B asks A…): each delivered request carries its hop, the
// target run's own calls carry one more, and one past the bound is refused.

export type ReplyTo = 'asker' | 'owner';

export interface AgentLinkEntry {
  name: string;
  talksTo?: readonly { agent: string; replyTo: ReplyTo }[] | undefined;
  ownerChat?: string | undefined;
}

export type SendDecision =
  | { ok: true; hop: number; replyTo: ReplyTo; ownerChat?: string }
  | { ok: false; error: string };

export interface SendAsk {
  /** The calling run's agent id (a name from agents.list, or a kind); undefined: not known. */
  from: string | undefined;
  to: string;
  /** Who asked the calling run, when a person did; unset: a system run (schedule, event…). */
  role?: 'owner' | 'member' | 'guest' | undefined;
  /** The hop of the calling run: 0 for a run a person or a schedule started. */
  hop: number;
  maxHops: number;
}

export function decideSend(list: readonly AgentLinkEntry[], a: SendAsk): SendDecision {
  const me = a.from === undefined ? undefined : list.find((e) => e.name === a.from);
  if (!me)
    return {
      ok: false,
      error: `this agent${a.from === undefined ? '' : ` (${a.from})`} is not a named agent with talksTo in agentwire's config, so it may not send to other agents`,
    };
  // The target runs with its own (owner) permissions: a member's or guest's words must not reach it
  // through an agent that merely passes them on.
  if (a.role === 'member' || a.role === 'guest')
    return {
      ok: false,
      error: `only the owner's messages may be passed to another agent; this run answers a ${a.role}`,
    };
  if (a.to === me.name) return { ok: false, error: 'an agent cannot send to itself' };
  const link = me.talksTo?.find((l) => l.agent === a.to);
  if (!link) {
    const may = (me.talksTo ?? []).map((l) => l.agent);
    return {
      ok: false,
      error: `agent "${me.name}" may not send to "${a.to}" (agents.list talksTo allows: ${may.join(', ') || 'none'})`,
    };
  }
  const hop = a.hop + 1;
  if (hop > a.maxHops)
    return {
      ok: false,
      error: `not sent: this request has already passed between agents ${a.hop} times, the most allowed (tools.maxAgentHops ${a.maxHops}); answer in your final reply instead`,
    };
  const target = list.find((e) => e.name === a.to);
  if (link.replyTo === 'owner') {
    if (target?.ownerChat === undefined)
      return { ok: false, error: `agent "${a.to}" has no ownerChat to send its answer to` };
    return { ok: true, hop, replyTo: 'owner', ownerChat: target.ownerChat };
  }
  return { ok: true, hop, replyTo: 'asker' };
}

/** The words the target agent sees: who asked, through how many hands, and where its answer goes. */
export function agentPrompt(from: string, text: string, hop: number, maxHops: number, to: ReplyTo): string {
  const where = to === 'asker' ? 'to the chat that asked' : "to your owner's chat";
  return [
    `(A message from agent "${from}" through agentwire's send_to_agent, hop ${hop} of at most ${maxHops}; not typed by a person here. Your final answer is sent ${where}.)`,
    text,
  ].join('\n\n');
}
