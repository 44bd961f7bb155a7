// Which agent kinds a config may name. The list is the agent registry's (agents/registry.ts), one
// layer above config: the loader's caller hands it down, so the config layer knows no CLI by name
// and a new spec needs no change here. Run once, by the loader, right after the schema.
import { nearestKey } from './hints.js';
import { agentsSchema, type Config } from './schema.js';
import { agentNameProblems } from './schema-agents-list.js';

export interface KindProblem {
  path: (string | number)[];
  message: string;
}

/** Every place a config names an agent kind, each checked against `known`. */
export function agentKindProblems(config: Config, known: readonly string[]): KindProblem[] {
  const problems: KindProblem[] = [];
  const check = (path: (string | number)[], kind: string | undefined) => {
    if (kind === undefined || known.includes(kind)) return;
    problems.push({ path, message: unknownKind(kind, known) });
  };
  check(['agent', 'kind'], config.agent.kind);
  const settings = Object.keys(agentsSchema.shape);
  for (const kind of Object.keys(config.agents)) if (!settings.includes(kind)) check(['agents', kind], kind);
  for (const [i, a] of config.agents.list.entries()) check(['agents', 'list', i, 'kind'], a.kind);
  // A check-in may name a named agent as well as a kind.
  const names = config.agents.list.map((a) => a.name);
  const named = (path: (string | number)[], v: string | undefined) => {
    if (v === undefined || !names.includes(v)) check(path, v);
  };
  named(['heartbeat', 'agent'], config.heartbeat.agent);
  for (const [i, s] of config.schedules.entries()) named(['schedules', i, 'agent'], s.agent);
  for (const [name, h] of Object.entries(config.hooks ?? {})) named(['hooks', name, 'agent'], h.agent);
  problems.push(...agentNameProblems(config.agents.list, config.routes, known));
  return problems;
}

function unknownKind(kind: string, known: readonly string[]): string {
  const near = nearestKey(kind, known);
  const list = known.join(', ');
  return near
    ? `unknown agent kind "${kind}"; did you mean ${near}? (known: ${list})`
    : `unknown agent kind "${kind}" (known: ${list})`;
}
