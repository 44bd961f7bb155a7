import { afterAll, beforeAll, describe, it } from 'vitest';
import { getSpec } from '../../src/agents/registry.js';
import { newSession } from '../../src/agents/resolve.js';
import type { AgentKind } from '../../src/agents/types.js';
import type { ChatKey } from '../../src/core/types.js';
import { runCommandReply } from '../../src/runner/run-command-reply.js';
import { requests, scenario, stateDir, turn } from './harness.js';
import { startToolHost, type ToolHostRig } from './tool-host-rig.js';

const CHAT: ChatKey = 'twilio:+15550001111';

let rig: ToolHostRig;
/** Past both CLIs' own limits (codex's tool_timeout_sec 60 s; opencode cut a call off within 65 s). */
const SLOW_TOOL_MS = 65_000;

beforeAll(async () => {
  rig = await startToolHost('tool-timeouts', () => SLOW_TOOL_MS);
});
afterAll(async () => {
  await rig?.close();
});

const CASES: { kind: AgentKind; tool: string; model?: string }[] = [
  { kind: 'opencode', tool: 'agentwire_send_message' },
  { kind: 'codex', tool: 'mcp__agentwire__send_message', model: 'fake-model' },
];

// The two CLIs at once: each case is a minute of waiting on the slow tool, not of work, and run one
// after the other they made this the slowest file of the suite.
describe("a tool call slower than the CLI's default timeout", () => {
  it.concurrent.for(CASES)(
    '$kind: gets its answer to the model',
    { timeout: 240_000 },
    async (c, { expect, onTestFinished }) => {
      const sc = `${c.kind}-slow-tool-${Date.now()}`;
      const base = await scenario(sc, {
        mode: 'tool',
        tool: { name: c.tool, input: { text: 'slow but sure' } },
        reply: 'Done.',
      });
      const spec = getSpec(c.kind);
      // Its own test's end, not the other case's: both run at once, and a state folder is settled
      // (its processes still running after 5 s killed) when the test it belongs to ends.
      const t = turn(c.kind, stateDir(c.kind, onTestFinished), base, 'work on it', newSession(spec), 200_000);
      const g = rig.grant(CHAT, `in:${sc}`, 200_000);
      const r = await runCommandReply(spec, {
        ...t.request,
        stateDir: rig.agentState(),
        ...(c.model !== undefined && { model: c.model }),
        tools: g.server,
      });
      g.release();
      // The whole result when it is not the answer: which error, after how long, and what the CLI said.
      expect(r, JSON.stringify(r).slice(0, 4000)).toMatchObject({ type: 'ok', text: 'Done.' });
      // The tool's own answer reached the model, not the CLI's timeout error.
      const last = JSON.stringify((await requests(sc)).at(-1)?.body);
      expect(last).toContain('more this run');
    },
  );
});
