// codex warm through the whole relay (relay-rig.ts) with agentwire's tools started late (a 3 s start,
// as under load inside a sandbox: fixtures/slow-mcp.mjs): the first turn's model request must already
// offer the tools. codex starts a thread's MCP servers in the background; only a server marked
// required is waited for when the thread starts (codexThreadTools). In the netns, against the fake
// model server. Needs `npm run build` (the tools run from dist/).
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requests, scenario } from './harness.js';
import { type RelayRig, relayRig } from './relay-rig.js';

const BIN = join(process.cwd(), 'dist/cli/bin.js');
const SLOW = join(import.meta.dirname, 'fixtures', 'slow-mcp.mjs');
const A = '+15550000001';

describe('codex warm (real CLI): tools that start late are offered on the first turn', () => {
  const id = `codex-slow-mcp-${randomUUID().slice(0, 8)}`;
  let rig: RelayRig;

  beforeAll(async () => {
    rig = relayRig('codex', await scenario(id, { reply: 'Noted.' }), {
      toolsEntry: { command: process.execPath, args: [SLOW, BIN] },
      model: 'fake-model',
    });
    await rig.start();
  });
  afterAll(async () => {
    await rig?.stop();
  });

  it('the model calls send_message on the first turn; the message and the answer reach the chat', async () => {
    await scenario(id, {
      mode: 'tool',
      tool: { name: 'mcp__agentwire__send_message', input: { text: 'from a late server' } },
      reply: 'Done.',
    });
    const n = rig.sent.length;
    await rig.say(A, 'Send something.');
    expect(rig.sent.slice(n).map((s) => s.text)).toEqual(['from a late server', 'Done.']);
    expect(JSON.stringify((await requests(id))[0]?.body ?? '')).toContain('send_message');
  });
});
