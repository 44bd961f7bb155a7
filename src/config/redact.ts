import type { Config } from './schema.js';

const MASK = '[redacted]';

/** A copy of the config safe to print: secret values and every env value replaced. */
export function redactConfig(config: Config): unknown {
  const copy = structuredClone(config) as Config;
  if (copy.twilio.authToken) copy.twilio.authToken = MASK;
  if (copy.twilio.apiSecret) copy.twilio.apiSecret = MASK;
  copy.agent.env = maskValues(copy.agent.env);
  for (const a of Object.values(copy.agents)) if (a?.env) a.env = maskValues(a.env);
  return copy;
}

const maskValues = (env: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.keys(env).map((k) => [k, MASK]));
