import type { EnvReference } from './load.js';
import { agentOverrides, type Config } from './schema.js';

const MASK = '[redacted]';

/**
 * A copy of the config safe to print: secret values and every env value replaced, and every other
 * string that was built from `${VAR}` references shown as written (`--key=${API_KEY}`), so a secret
 * passed through the environment never appears, whichever key it was put in.
 */
export function redactConfig(config: Config, envRefs: readonly EnvReference[] = []): unknown {
  const copy = structuredClone(config) as Config;
  for (const ref of envRefs) setString(copy, ref.path, ref.template);
  if (copy.twilio.authToken) copy.twilio.authToken = MASK;
  if (copy.twilio.apiSecret) copy.twilio.apiSecret = MASK;
  copy.agent.env = maskValues(copy.agent.env);
  for (const a of agentOverrides(copy.agents)) if (a?.env) a.env = maskValues(a.env);
  return copy;
}

const maskValues = (env: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.keys(env).map((k) => [k, MASK]));

/** Replaces the string at `path`, if the resolved config still has a string there. */
function setString(root: unknown, path: readonly (string | number)[], value: string): void {
  let node: unknown = root;
  for (const key of path.slice(0, -1)) {
    if (!node || typeof node !== 'object') return;
    node = (node as Record<string | number, unknown>)[key];
  }
  const last = path[path.length - 1];
  if (last === undefined || !node || typeof node !== 'object') return;
  const parent = node as Record<string | number, unknown>;
  if (typeof parent[last] === 'string') parent[last] = value;
}
