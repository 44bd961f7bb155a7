// Which agent kinds a config may name. The list is the agent registry's (agents/registry.ts), one
// layer above config: the loader's caller hands it down, so the config layer knows no CLI by name
// and a new spec needs no change here. Run once, by the loader, right after the schema.
import { nearestKey } from './hints.js';
import { agentsSchema, type Config } from './schema.js';

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
  check(['heartbeat', 'agent'], config.heartbeat.agent);
  for (const [i, s] of config.schedules.entries()) check(['schedules', i, 'agent'], s.agent);
  for (const [name, h] of Object.entries(config.hooks ?? {})) check(['hooks', name, 'agent'], h.agent);
  return problems;
}

function unknownKind(kind: string, known: readonly string[]): string {
  const near = nearestKey(kind, known);
  const list = known.join(', ');
  return near
    ? `unknown agent kind "${kind}"; did you mean ${near}? (known: ${list})`
    : `unknown agent kind "${kind}" (known: ${list})`;
}
