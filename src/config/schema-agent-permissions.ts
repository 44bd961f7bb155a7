// `agent.permissions` / `agents.<kind>.permissions` (approvals from the phone): how a warm
// process's permission questions are answered, and the check that refuses `ask` where no question
// can ever be asked. Kept apart from schema.ts, as the warm keys are (schema-warm.ts).
import { z } from 'zod';

export const permissionsField = z
  .enum(['ask', 'allow', 'deny'])
  .optional()
  .describe(
    "How a warm agent's permission questions are answered: ask (the chat's approvers decide, from the phone), allow, or deny. Default: deny, as a cold run, which never asks. ask needs mode warm.",
  );

type Policy = 'ask' | 'allow' | 'deny';
interface AgentLike {
  kind: string;
  mode?: 'warm' | 'cold' | undefined;
  permissions?: Policy | undefined;
}
interface OverrideLike {
  mode?: 'warm' | 'cold' | undefined;
  permissions?: Policy | undefined;
}

const WHY =
  'a cold run is one-shot and cannot wait for an answer from the phone (the CLI in its headless mode never asks; it refuses what its own rules do not allow)';

/**
 * `ask` for an agent that runs cold, at the key that says `ask`, naming the key that makes it cold.
 * The effective values follow resolveAgent: `agents.<kind>` over `agent` (for the agent's own kind).
 */
export function permissionProblems(
  agent: AgentLike,
  kinds: readonly [string, OverrideLike | undefined][],
): { path: (string | number)[]; message: string }[] {
  const out: { path: (string | number)[]; message: string }[] = [];
  const own = kinds.find(([k]) => k === agent.kind)?.[1];
  if (agent.permissions === 'ask' && own?.permissions === undefined) {
    const mode = own?.mode ?? agent.mode;
    const cold = mode !== 'cold' ? '' : own?.mode === 'cold' ? `agents.${agent.kind}.mode` : 'agent.mode';
    if (cold) out.push({ path: ['agent', 'permissions'], message: refusal(cold) });
  }
  for (const [kind, over] of kinds) {
    if (over?.permissions !== 'ask') continue;
    const mode = over.mode ?? (kind === agent.kind ? agent.mode : undefined);
    if (mode !== 'cold') continue;
    const cold = over.mode === 'cold' ? `agents.${kind}.mode` : 'agent.mode';
    out.push({ path: ['agents', kind, 'permissions'], message: refusal(cold) });
  }
  return out;
}

function refusal(coldKey: string): string {
  return `permissions 'ask' needs a warm agent, and ${coldKey} is 'cold': ${WHY}. Set the mode to 'warm', or permissions to 'deny' or 'allow'`;
}
