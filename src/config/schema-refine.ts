// Pieces the config schema's files share (schema.ts, schema-checkins.ts, the channels' schemas).
import { z } from 'zod';

/**
 * Cross-field checks run even when another key of the same object already failed, so one
 * `config check` lists every problem (zod skips refinements after a failure by default). The
 * value may then be malformed: each check tests the types it relies on.
 */
export const ALWAYS = { when: () => true };
type Loose = Record<string, unknown>;
export const loose = (v: unknown): Loose | undefined =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Loose) : undefined;
export const optString = (v: unknown): v is string | undefined => v === undefined || typeof v === 'string';

/**
 * The product's default CLI when the config names none. The one place outside src/agents/ that names
 * a kind (test/agents/kind-literals.test.ts allows it); a test checks it is registered.
 */
export const DEFAULT_AGENT_KIND = 'claude';

/**
 * The shape of an agent kind. Which kinds exist is the agent registry's business (agents/registry.ts,
 * a layer above this one): the loader checks the names against the list its caller hands down
 * (load.ts, agentKindProblems), so this schema knows no CLI by name.
 */
export const AGENT_KIND_NAME = /^[a-z][a-z0-9-]{0,31}$/;
export const agentKind = z
  .string()
  .regex(
    AGENT_KIND_NAME,
    'an agent kind is lower-case letters, digits and -, like the names in docs/agents.md',
  );

/** Whether `s` compiles as a case-insensitive regular expression (mention patterns and the like). */
export const isRegExp = (s: string): boolean => {
  try {
    new RegExp(s, 'i');
    return true;
  } catch {
    return false;
  }
};

/**
 * Credentials and tokens must not cross the network in clear text: https, or plain http only to
 * this machine (a local fake or proxy).
 */
export function httpsUnlessLoopback(value: string): boolean {
  try {
    const u = new URL(value);
    if (u.protocol === 'https:') return true;
    return u.protocol === 'http:' && ['127.0.0.1', '[::1]', 'localhost'].includes(u.hostname);
  } catch {
    return false;
  }
}
