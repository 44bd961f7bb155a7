// Issue 17 through the built `agentwire chat`: ask_user from a fake claude that is a real MCP
// client (test/e2e/fixtures/fake-tool-cli.mjs) is refused with a clear sentence in a cold run, and
// the approval commands answer in the console. A warm turn asking from the console needs the warm
// drivers' `ask` policy and warm MCP tools (other branches): see interact-relay.test.ts and
// test/queue/interactions.test.ts for the asking itself. Needs `npm run build` first.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ASK_NEEDS_WARM } from '../../src/tools/handlers.js';
import { type Home, MAIN, makeHome, type Proc, spawnNode, waitFor } from './helpers.js';

const TOOL_CLI = join(import.meta.dirname, 'fixtures', 'fake-tool-cli.mjs');

let home: Home | undefined;
let chat: Proc | undefined;
afterEach(() => {
  if (chat && chat.child.exitCode === null) chat.child.kill('SIGKILL');
  chat = undefined;
  home?.cleanup();
});
beforeAll(() => {
  expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
});

const say = (p: Proc, line: string) => p.child.stdin?.write(`${line}\n`);

describe('ask_user and approvals through agentwire chat', () => {
  it('a cold run is told ask_user needs a warm agent; the approval commands answer', async () => {
    home = makeHome({ agent: { command: [process.execPath, TOOL_CLI] } });
    const p = spawnNode([MAIN, 'chat'], home.env);
    chat = p;
    say(
      p,
      `TOOLS: ${JSON.stringify([{ name: 'ask_user', arguments: { question: 'Deploy?', choices: ['a', 'b'] } }])}`,
    );
    expect(await waitFor(() => p.stdout().includes('reply: '), 30_000)).toBe(true);
    expect(p.stdout()).toContain(`ask_user error: ${ASK_NEEDS_WARM}`);
    say(p, '/approvals');
    expect(await waitFor(() => p.stdout().includes('Nothing is allowed for this chat'), 10_000)).toBe(true);
    say(p, '/approve');
    expect(await waitFor(() => p.stdout().includes('Nothing is waiting for approval.'), 10_000)).toBe(true);
    // With nothing asked, a bare number is an ordinary message for the agent.
    say(p, '2');
    expect(await waitFor(() => p.stdout().includes('reply: 2'), 30_000)).toBe(true);
    p.child.stdin?.end();
    expect((await p.exit).code).toBe(0);
  }, 60_000);
});
