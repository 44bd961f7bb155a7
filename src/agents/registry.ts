// Every supported CLI. Adding a CLI means one spec file (src/agents/<kind>.ts) and one entry here:
// its import and its name in SPECS. Everything else (config validation, `doctor`, `agentwire agent`,
// `/agent`, error messages, the runner's environment) reads the spec from here. test/agents/sixth-cli.test.ts proves it with a fake CLI, and
// test/agents/kind-literals.test.ts keeps kind names out of the rest of src/.
import { acpSpec } from './acp.js';
import { claudeSpec } from './claude.js';
import { codexSpec } from './codex.js';
import { geminiSpec } from './gemini.js';
import { opencodeSpec } from './opencode.js';
import { piSpec } from './pi.js';
import type { AgentKind, AgentSpec } from './types.js';

/** In the order lists show them (`/agent`, config errors, `agentwire agent --kind`). */
export const SPECS: readonly AgentSpec[] = [claudeSpec, codexSpec, piSpec, opencodeSpec, geminiSpec, acpSpec];

/** What the rest of the relay reads, all derived from a list of specs. */
export interface Registry {
  AGENT_SPECS: Readonly<Record<AgentKind, AgentSpec>>;
  /** Every registered kind, in list order. */
  AGENT_KINDS: readonly AgentKind[];
  /** Every registered CLI's nested-agent variables, removed from every child's environment. */
  NESTED_AGENT_ENV: readonly string[];
  isAgentKind(value: string): value is AgentKind;
  /** The spec of a kind; a kind not registered is a bug upstream (config validation checks kinds). */
  getSpec(kind: AgentKind): AgentSpec;
}

/** The registry of a list of specs (a test builds one with a sixth, fake CLI the same way). */
export function registryOf(specs: readonly AgentSpec[]): Registry {
  const bySpec: Readonly<Record<AgentKind, AgentSpec>> = Object.freeze(
    Object.fromEntries(specs.map((s) => [s.kind, s])),
  );
  const isAgentKind = (value: string): value is AgentKind => Object.hasOwn(bySpec, value);
  return {
    AGENT_SPECS: bySpec,
    AGENT_KINDS: Object.freeze(specs.map((s) => s.kind)),
    NESTED_AGENT_ENV: Object.freeze([...new Set(specs.flatMap((s) => s.nestedEnv))]),
    isAgentKind,
    getSpec(kind) {
      if (!isAgentKind(kind)) throw new Error(`unknown agent kind ${JSON.stringify(kind)}`);
      return bySpec[kind] as AgentSpec;
    },
  };
}

export const { AGENT_SPECS, AGENT_KINDS, NESTED_AGENT_ENV, isAgentKind, getSpec } = registryOf(SPECS);

/** The kinds with a one-shot (cold) mode: every CLI but a warm-only one (an ACP agent). */
export const CLI_KINDS: readonly AgentKind[] = SPECS.filter((s) => !s.warmOnly).map((s) => s.kind);
