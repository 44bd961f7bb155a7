// agentwire's tools through the real CLIs (docs/tools.md): each CLI is given `agentwire mcp` from
// dist/ the way the relay gives it (its spec's `tools` wiring, through runCommandReply), the fake
// model server calls our tool by the name the CLI exposes it under, and the test checks the effect
// in the store: a message in the outbox, a task stored. The relay side here is a real tool host on
// a real control socket and a temp SQLite store.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSpec } from '../../src/agents/registry.js';
import { newSession } from '../../src/agents/resolve.js';
import type { AgentKind, ToolServer } from '../../src/agents/types.js';
import type { ChatKey } from '../../src/core/types.js';
import { runCommandReply } from '../../src/runner/run-command-reply.js';
import type { Db } from '../../src/store/sqlite/db.js';
import { rowsForKey } from '../../src/store/sqlite/outbox.js';
import { tasksForChat } from '../../src/store/sqlite/tasks.js';
import { ASK_NEEDS_WARM } from '../../src/tools/handlers.js';
import { requests, scenario, stateDir, turn } from './harness.js';
import { startToolHost, type ToolHostRig } from './tool-host-rig.js';

const _MAIN = join(process.cwd(), 'dist/cli/bin.js');
const CHAT: ChatKey = 'twilio:+15550001111';

let rig: ToolHostRig;
let db: Db;

beforeAll(async () => {
  rig = await startToolHost('tool-runs');
  db = rig.db;
});
afterAll(async () => {
  await rig?.close();
});

/** The name each CLI gives our tool in the model's request (pi: its extension's own names). */
const EXPOSED: Partial<Record<AgentKind, (tool: string) => string>> = {
  claude: (t) => `mcp__agentwire__${t}`,
  codex: (t) => `mcp__agentwire__${t}`,
  gemini: (t) => `mcp_agentwire_${t}`,
  opencode: (t) => `agentwire_${t}`,
  pi: (t) => t,
};

/**
 * codex defers MCP tools behind its client-side `tool_search` for every model of its catalog that
 * supports it (all of codex 0.169's); a real model finds ours there, the fake one cannot search. A
 * model outside the catalog has no tool search, so codex offers MCP tools directly.
 */
const MODEL: Partial<Record<AgentKind, { model: string }>> = { codex: { model: 'fake-model' } };

const agentState = () => rig.agentState();
const grant = (runKey: string, timeoutMs: number): ToolServer => rig.grant(CHAT, runKey, timeoutMs).server;

for (const [kind, exposed] of Object.entries(EXPOSED) as [AgentKind, (t: string) => string][]) {
  describe(`${kind} (real CLI) with agentwire's tools`, () => {
    const spec = getSpec(kind);

    it("the model calls send_message: the message is in the outbox of the run's chat, once", async () => {
      const state = stateDir(kind);
      const sc = `${kind}-tool-send-${Date.now()}`;
      const base = await scenario(sc, {
        mode: 'tool',
        tool: { name: exposed('send_message'), input: { text: 'halfway there' } },
        reply: 'Done.',
      });
      const t = turn(kind, state, base, 'work on it', newSession(spec), 90_000);
      const runKey = `in:${sc}`;
      const r = await runCommandReply(spec, {
        ...t.request,
        stateDir: agentState(),
        ...MODEL[kind],
        tools: grant(runKey, 90_000),
      });
      expect(r).toMatchObject({ type: 'ok', text: 'Done.' });
      const seen = await requests(sc);
      expect(seen.map((q) => q.answer)).toContain(`tool ${exposed('send_message')}`);
      if (kind === 'pi') {
        // pi's extension tools reach the model with our schemas (OpenAI chat completions here).
        type Offered = { tools?: { function: { name: string; parameters: unknown } }[] };
        const offered = ((seen[0]?.body ?? {}) as Offered).tools;
        expect(offered?.map((t) => t.function.name)).toEqual(
          expect.arrayContaining(['send_message', 'ask_user']),
        );
        expect(offered?.find((t) => t.function.name === 'send_message')?.function.parameters).toMatchObject({
          type: 'object',
          required: ['text'],
          properties: { text: { type: 'string' } },
        });
      }
      // The tool's answer came back to the model.
      expect(JSON.stringify(seen.at(-1)?.body)).toContain('more this run');
      expect(rowsForKey(db, `tool:${runKey}:msg:1`).map((row) => [row.chat, row.item])).toEqual([
        [CHAT, { type: 'text', text: 'halfway there' }],
      ]);
    });

    // A refusal through pi's extension: thrown, so pi hands the model a failed tool call with the
    // relay's sentence (the MCP CLIs get the same sentence as an MCP error result). Registered for
    // pi only (not skipped for the others): ask_user's cold refusal through MCP is in test/cli/mcp.
    if (kind === 'pi')
      it('the model calls ask_user in a cold run: refused, and the model reads why', async () => {
        const state = stateDir(kind);
        const sc = `${kind}-tool-ask-${Date.now()}`;
        const base = await scenario(sc, {
          mode: 'tool',
          tool: { name: exposed('ask_user'), input: { question: 'which branch?' } },
          reply: 'I will ask in my answer.',
        });
        const t = turn(kind, state, base, 'deploy it', newSession(spec), 90_000);
        const r = await runCommandReply(spec, {
          ...t.request,
          stateDir: agentState(),
          tools: grant(`in:${sc}`, 90_000),
        });
        expect(r).toMatchObject({ type: 'ok', text: 'I will ask in my answer.' });
        const last = JSON.stringify((await requests(sc)).at(-1)?.body);
        expect(last).toContain(ASK_NEEDS_WARM);
        // And pi recorded it as a failed call (its session file: the relay-chosen session id).
        const results = readFileSync(String(r.sessionId), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l).message)
          .filter((m) => m?.role === 'toolResult');
        expect(results.map((m) => [m.toolName, m.isError])).toEqual([['ask_user', true]]);
      });

    it('the model calls schedule_task: the task is stored for the chat', async () => {
      const state = stateDir(kind);
      const sc = `${kind}-tool-task-${Date.now()}`;
      const prompt = `check the ${kind} build`;
      const base = await scenario(sc, {
        mode: 'tool',
        tool: { name: exposed('schedule_task'), input: { prompt, every: '2h' } },
        reply: 'Scheduled.',
      });
      const t = turn(kind, state, base, 'remind me', newSession(spec), 90_000);
      const r = await runCommandReply(spec, {
        ...t.request,
        stateDir: agentState(),
        ...MODEL[kind],
        tools: grant(`in:${sc}`, 90_000),
      });
      expect(r).toMatchObject({ type: 'ok', text: 'Scheduled.' });
      expect(tasksForChat(db, CHAT).map((task) => [task.prompt, task.every])).toContainEqual([prompt, '2h']);
    });
  });
}
