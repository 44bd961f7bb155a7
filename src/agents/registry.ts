// Every supported CLI by kind. Adding a CLI means one spec file and one line here.
import { acpSpec } from './acp.js';
import { claudeSpec } from './claude.js';
import { codexSpec } from './codex.js';
import { geminiSpec } from './gemini.js';
import { opencodeSpec } from './opencode.js';
import { piSpec } from './pi.js';
import { AGENT_KINDS, type AgentKind, type AgentSpec } from './types.js';

export const AGENT_SPECS: Readonly<Record<AgentKind, AgentSpec>> = {
  claude: claudeSpec,
  codex: codexSpec,
  pi: piSpec,
  opencode: opencodeSpec,
  gemini: geminiSpec,
  acp: acpSpec,
};

export function isAgentKind(value: string): value is AgentKind {
  return (AGENT_KINDS as readonly string[]).includes(value);
}

export function getSpec(kind: AgentKind): AgentSpec {
  return AGENT_SPECS[kind];
}
