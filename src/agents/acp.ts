// Any agent that speaks the Agent Client Protocol over stdio (`agent.kind: 'acp'` with its argv in
// `agent.command`): no spec of ours beyond this one. There is no one-shot ACP mode, so it runs only
// warm (src/drivers/acp.ts); `build` refuses, so a cold run says why instead of starting the agent
// with a prompt it would never read.
import { errorResult, NONE } from './common.js';
import type { AgentSpec } from './types.js';

export const ACP_COLD_REFUSED = 'An ACP agent runs only warm (agent.mode "warm"); it has no one-shot mode.';

export const acpSpec: AgentSpec = {
  kind: 'acp',
  warmOnly: true,
  // Never used: the config check refuses an ACP agent without its command.
  program: 'acp-agent',
  choosesSessionId: 'cli',
  passEnv: [],
  thinkingLevels: [],
  build() {
    throw new Error(ACP_COLD_REFUSED);
  },
  messageStream: () => () => NONE,
  parse: () => errorResult('acp', 'exit', { exitCode: null, signal: null }),
};
