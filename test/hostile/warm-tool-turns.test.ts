// A tool call belongs to the turn that made it. With `sessions.scope: 'global'` one warm process
// serves every chat: chat A's turn makes a send_message call, and the turn ends while the call is
// still on its way to the relay (the fake claude's slow link holds it: FAKE_TOOLS_PROXY); chat B's
// turn is bound when it lands. It must not act for B (A's private text in B's chat): it is refused,
// and says why. And a tool token that never existed is refused as not valid, without a story about
// a run it never belonged to. Both through the built relay (`npm run build` first), with the fake
// warm claude that is a real MCP client of the real `agentwire mcp`.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { callControl } from '../../src/control/client.js';
import { MAIN, waitFor } from '../e2e/helpers.js';
import { type RelayProc, startRelayProc } from '../faults/relay-proc-rig.js';

const WARM_TOOL_CLI = join(process.cwd(), 'test/e2e/fixtures/fake-tool-claude-stream.mjs');
const A = '+15550002001';
const B = '+15550002002';

let rig: RelayProc | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});
beforeAll(() => {
  expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
});

interface Batch {
  pid: number;
  when: 'turn' | 'after' | 'inflight';
  calls: { name: string; isError: boolean; text: string }[];
}
const batches = (r: RelayProc): Batch[] => {
  const file = join(r.home.dir, 'workspace', 'fake.jsonl.tools');
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Batch)
    : [];
};

describe('warm tool calls and the turn that made them', () => {
  it("global scope: a call of A's ended turn that lands during B's turn is refused, not sent to B", async () => {
    const r = await startRelayProc({
      sessions: { scope: 'global' },
      agent: {
        mode: 'warm',
        command: [process.execPath, WARM_TOOL_CLI],
        // Relative to the agent's working folder, <state>/workspace.
        env: { FAKE_TOOLS_PROXY: '1', FAKE_LOG: 'fake.jsonl' },
      },
    });
    rig = r;
    const secret = 'the plan for A only';
    const late = [{ name: 'send_message', arguments: { text: secret }, inflight: true }];
    expect(await r.say(A, `TOOLS: ${JSON.stringify(late)}`)).toMatchObject({ type: 'stored' });
    // A's turn is over (its reply went out) while its call is held on the way.
    expect(await waitFor(() => r.sent(A).some((t) => t.startsWith('reply: ')), 30_000), r.proc.stderr()).toBe(
      true,
    );
    const mine = [{ name: 'send_message', arguments: { text: 'a note for B' } }];
    expect(await r.say(B, `TOOLS: ${JSON.stringify(mine)}`)).toMatchObject({ type: 'stored' });
    expect(await waitFor(() => r.sent(B).some((t) => t.startsWith('reply: ')), 30_000), r.proc.stderr()).toBe(
      true,
    );
    expect(
      await waitFor(() => batches(r).some((b) => b.when === 'inflight'), 15_000),
      JSON.stringify({ b: batches(r), a: r.sent(A), bs: r.sent(B), err: r.proc.stderr() }),
    ).toBe(true);

    // Nothing of A's reached B; B's own call acted for B, once.
    expect(r.sent(B).filter((t) => t.includes(secret))).toEqual([]);
    expect(r.sent(B).filter((t) => t === 'a note for B')).toHaveLength(1);
    // The late call was told why it did not act.
    const inflight = batches(r).find((b) => b.when === 'inflight');
    expect(inflight?.calls).toEqual([
      { name: 'send_message', isError: true, text: expect.stringMatching(/turn that has ended/) },
    ]);
    // One process served both chats (the scope is global).
    expect(new Set(batches(r).map((b) => b.pid)).size).toBe(1);
  }, 90_000);

  it('a tool token that never existed is refused as not valid, naming no run', async () => {
    const r = await startRelayProc({});
    rig = r;
    // The runs' tools are served on their own socket (the control socket refuses tools.call).
    const socket = r.home.ctx().paths.toolsSocket;
    const made = 'AAAAAAAAAAAA.' + 'B'.repeat(43);
    const call = await callControl(socket, 'tools.call', { token: made, tool: 'chat_info', args: {} });
    expect(call).toMatchObject({ ok: false, error: 'this tool token is not valid' });
  }, 60_000);
});
