// Every supported CLI. Adding a CLI means one spec file (src/agents/<kind>.ts) and one entry here:
// its import and its name in SPECS. Everything else (config validation, `doctor`, `agentwire agent`,
// `/agent`, error messages, the runner's environment) reads the spec from here. test/agents/sixth-cli.test.ts proves it with a fake CLI, and
// test/agents/kind-literals.test.ts keeps kind names out of the rest of src/.
import { claudeSpec } from './claude.js';
import { codexSpec } from './codex.js';
import { geminiSpec } from './gemini.js';
import { opencodeSpec } from './opencode.js';
import { piSpec } from './pi.js';
import type { AgentKind, AgentSpec } from './types.js';

/** In the order lists show them (`/agent`, config errors, `agentwire agent --kind`). */
const SPECS: readonly AgentSpec[] = [claudeSpec, codexSpec, piSpec, opencodeSpec, geminiSpec];

export const AGENT_SPECS: Readonly<Record<AgentKind, AgentSpec>> = Object.freeze(
  Object.fromEntries(SPECS.map((s) => [s.kind, s])),
);

/** Every registered kind, in registry order. */
export const AGENT_KINDS: readonly AgentKind[] = Object.freeze(SPECS.map((s) => s.kind));

/** Every registered CLI's nested-agent variables, removed from every child's environment. */
export const NESTED_AGENT_ENV: readonly string[] = Object.freeze([
  ...new Set(SPECS.flatMap((s) => s.nestedEnv)),
]);

export function isAgentKind(value: string): value is AgentKind {
  return Object.hasOwn(AGENT_SPECS, value);
}

/** The spec of a kind; a kind not registered is a bug upstream (config validation checks kinds). */
export function getSpec(kind: AgentKind): AgentSpec {
  if (!isAgentKind(kind)) throw new Error(`unknown agent kind ${JSON.stringify(kind)}`);
  return AGENT_SPECS[kind] as AgentSpec;
}
