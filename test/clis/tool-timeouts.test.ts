import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSpec } from '../../src/agents/registry.js';
import { newSession } from '../../src/agents/resolve.js';
import type { AgentKind } from '../../src/agents/types.js';
import type { ChatKey } from '../../src/core/types.js';
import { runCommandReply } from '../../src/runner/run-command-reply.js';
import { requests, scenario, stateDir, turn } from './harness.js';
import { startToolHost, type ToolHostRig } from './tool-host-rig.js';

const _MAIN = join(process.cwd(), 'dist/cli/bin.js');
const CHAT: ChatKey = 'twilio:+15550001111';

let rig: ToolHostRig;
let delayMs = 0;

beforeAll(async () => {
  rig = await startToolHost('tool-timeouts', () => delayMs);
});
afterAll(async () => {
  await rig?.close();
});

const CASES: { kind: AgentKind; tool: string; delayMs: number; model?: string }[] = [
  { kind: 'opencode', tool: 'agentwire_send_message', delayMs: 65_000 },
  { kind: 'codex', tool: 'mcp__agentwire__send_message', delayMs: 65_000, model: 'fake-model' },
];

describe.each(CASES)('$kind: a tool call slower than its default timeout', (c) => {
  it('gets its answer to the model', { timeout: 240_000 }, async () => {
    delayMs = c.delayMs;
    const sc = `${c.kind}-slow-tool-${Date.now()}`;
    const base = await scenario(sc, {
      mode: 'tool',
      tool: { name: c.tool, input: { text: 'slow but sure' } },
      reply: 'Done.',
    });
    const spec = getSpec(c.kind);
    const t = turn(c.kind, stateDir(c.kind), base, 'work on it', newSession(spec), 200_000);
    const g = rig.grant(CHAT, `in:${sc}`, 200_000);
    const r = await runCommandReply(spec, {
      ...t.request,
      stateDir: rig.agentState(),
      ...(c.model !== undefined && { model: c.model }),
      tools: g.server,
    });
    g.release();
    expect(r).toMatchObject({ type: 'ok', text: 'Done.' });
    // The tool's own answer reached the model, not the CLI's timeout error.
    const last = JSON.stringify((await requests(sc)).at(-1)?.body);
    expect(last).toContain('more this run');
  });
});
