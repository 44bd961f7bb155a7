// A call of the user's own tool under `permissions: 'ask'` asks the chat's owner first, through the
// same approval flow as a CLI's own permission requests (queue/interactions.ts): the real queue and
// store, the relay's tool host (createTools) on a real socket, and an agent (the far edge) whose run
// starts the real `agentwire mcp` from dist/ with the run's tools and calls the user's tool as a
// CLI would. A tool marked safe is not asked about; under `deny` a tool not marked safe is refused.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AgentRequest, PermissionPolicy } from '../../src/agents/types.js';
import { MethodRegistry } from '../../src/control/methods.js';
import { type ControlServer, startControlServer } from '../../src/control/server.js';
import type { AgentResolver } from '../../src/queue/ports.js';
import { createTools, registerToolsMethod } from '../../src/relay.js';
import { interactionStore } from '../../src/store/sqlite/interactions.js';
import { storeOver } from '../../src/store/sqlite/open.js';
import type { ToolHost } from '../../src/tools/host.js';
import { type Home, makeHome } from '../e2e/helpers.js';
import { FakeAgent, type Harness, harness, ok } from '../queue/helpers.js';
import { tempDb } from '../store/helpers.js';

const BIN = join(process.cwd(), 'dist/cli/bin.js');
const SERVER = join(process.cwd(), 'test/fixtures/fake-user-mcp.mjs');

let h: Harness | undefined;
let home: Home | undefined;
let tools: ToolHost | undefined;
let control: ControlServer | undefined;
afterEach(async () => {
  await control?.close();
  await tools?.close();
  h?.cleanup();
  home?.cleanup();
  h = undefined;
  home = undefined;
  tools = undefined;
  control = undefined;
});
beforeAll(() => {
  expect(existsSync(BIN), 'build first: npm run build').toBe(true);
});

/** The run's CLI: starts `agentwire mcp` as the run's tools say, calls `tool`, answers its text. */
async function callAsCli(req: AgentRequest, tool: string, args: Record<string, unknown>): Promise<string> {
  const server = req.tools;
  if (!server) return 'no tools';
  const client = new Client({ name: 'cli', version: '0' });
  await client.connect(
    new StdioClientTransport({
      command: server.command,
      args: [...server.args],
      env: { PATH: process.env.PATH ?? '', ...server.env },
      stderr: 'ignore',
    }),
  );
  try {
    const r = await client.callTool({ name: tool, arguments: args });
    return `${r.isError ? 'error' : 'ok'}: ${(r.content as { text: string }[])[0]?.text}`;
  } finally {
    await client.close();
  }
}

async function setup(policy: PermissionPolicy) {
  home = makeHome({
    tools: { servers: { fake: { command: [process.execPath, SERVER], safe: ['add'], timeoutSeconds: 10 } } },
  });
  const ctx = home.ctx();
  const store = tempDb();
  const socket = join(home.dir, 'tools.sock');
  tools = createTools(ctx, storeOver(store.db), new Map(), socket, {
    command: process.execPath,
    args: [BIN],
  });
  const registry = new MethodRegistry();
  registerToolsMethod(registry, tools);
  control = await startControlServer(socket, registry, ctx.log);
  // The prompt names the call: `<tool> <json args>`.
  const agent = new FakeAgent(async (req) => {
    const [tool = '', json = '{}'] = req.prompt.split(/ (.*)/s);
    return ok(await callAsCli(req, tool, JSON.parse(json)));
  });
  const plain = agent.resolver();
  const resolver: AgentResolver = (kind) => {
    const r = plain(kind);
    return r.ok ? { ok: true, agent: { ...r.agent, base: { ...r.agent.base, permissions: policy } } } : r;
  };
  h = harness({
    store,
    agent,
    resolver,
    tools: tools.grantor,
    interactions: {
      store: interactionStore(store.db),
      approvers: undefined,
      approvalTimeoutMs: 60_000,
      owner: () => 'local',
    },
  });
  return h;
}

const waitText = (re: RegExp) =>
  vi.waitFor(
    () => {
      const texts = h?.channel.texts() ?? [];
      expect(
        texts.some((t) => re.test(t)),
        `${re} in ${JSON.stringify(texts)}`,
      ).toBe(true);
    },
    { timeout: 20_000, interval: 20 },
  );

describe("the user's own tools and approvals", () => {
  it('under ask: a tool not marked safe asks the owner; 1 runs it, 3 does not and the agent is told', async () => {
    const h = await setup('ask');
    await h.send('fake__echo {"text":"ship it"}');
    await waitText(
      /^claude wants to use fake__echo: \{"text":"ship it"\}\n1 allow once · 2 allow for this chat · 3 deny$/,
    );
    await h.send('1');
    await waitText(/^ok: echo: ship it \(call 1 of pid \d+\)$/);
    await h.send('fake__echo {"text":"again"}');
    await waitText(/wants to use fake__echo: \{"text":"again"\}/);
    await h.send('3');
    await waitText(/^error: fake__echo was not run: denied from the phone$/);
    await h.queue.whenIdle();
    // The denied call never reached the server: it served one call only.
    expect(h.channel.texts().filter((t) => /echo: again/.test(t) && t.startsWith('ok'))).toEqual([]);
  }, 60_000);

  it('under ask: a tool marked safe runs without a question', async () => {
    const h = await setup('ask');
    await h.send('fake__add {"a":1,"b":2}');
    await waitText(/^ok: 3$/);
    expect(h.channel.texts().some((t) => t.includes('wants to'))).toBe(false);
  }, 60_000);

  it('under deny: a tool not marked safe is refused without asking; a safe one runs', async () => {
    const h = await setup('deny');
    await h.send('fake__echo {"text":"x"}');
    await waitText(
      /^error: fake__echo was not run: it is not marked safe in agentwire's config and this run's permissions are deny/,
    );
    await h.send('fake__add {"a":2,"b":2}');
    await waitText(/^ok: 4$/);
    expect(h.channel.texts().some((t) => t.includes('wants to'))).toBe(false);
  }, 60_000);
});
