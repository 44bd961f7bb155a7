// Approvals and ask_user through the built `agentwire chat` (its stdin and stdout): in a warm turn, a warm fake
// claude that is a real MCP client (fixtures/fake-tool-claude-stream.mjs, starting `agentwire mcp`
// from dist/) calls ask_user, the console shows the numbered question, and the next line typed is
// the tool's result, not a message to run; a warm fake claude under `permissions: 'ask'`
// (test/fixtures/fake-claude-stream.mjs) is answered by the person at the terminal. In a cold run
// (fixtures/fake-tool-cli.mjs) ask_user is refused with a clear sentence, and the approval commands
// answer. The same through the relay: ask-user-relay.test.ts, interact-relay.test.ts. Needs
// `npm run build` first.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ASK_NEEDS_WARM } from '../../src/tools/handlers.js';
import { type Home, MAIN, makeHome, type Proc, spawnNode, waitFor } from './helpers.js';

const TOOL_CLI = join(import.meta.dirname, 'fixtures', 'fake-tool-cli.mjs');
const WARM_TOOL_CLI = join(import.meta.dirname, 'fixtures', 'fake-tool-claude-stream.mjs');
const CLAUDE = join(import.meta.dirname, '..', 'fixtures', 'fake-claude-stream.mjs');
const count = (haystack: string, needle: string) => haystack.split(needle).length - 1;

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
    expect(await waitFor(() => p.stdout().includes('reply: '), 45_000)).toBe(true);
    expect(p.stdout()).toContain(`ask_user error: ${ASK_NEEDS_WARM}`);
    say(p, '/approvals');
    expect(await waitFor(() => p.stdout().includes('Nothing is allowed for this chat'), 45_000)).toBe(true);
    say(p, '/approve');
    expect(await waitFor(() => p.stdout().includes('Nothing is waiting for approval.'), 45_000)).toBe(true);
    // With nothing asked, a bare number is an ordinary message for the agent.
    say(p, '2');
    expect(await waitFor(() => p.stdout().includes('reply: 2'), 45_000)).toBe(true);
    p.child.stdin?.end();
    expect((await p.exit).code).toBe(0);
  }, 180_000);

  it('a warm turn asks: the next line typed is the answer ("2" picks a choice, free text as typed), never a run', async () => {
    home = makeHome({ agent: { mode: 'warm', command: [process.execPath, WARM_TOOL_CLI] } });
    const p = spawnNode([MAIN, 'chat'], home.env);
    chat = p;
    const ask = (question: string, choices?: string[]) =>
      `TOOLS: ${JSON.stringify([{ name: 'ask_user', arguments: { question, ...(choices && { choices }) } }])}`;
    say(p, ask('Deploy where?', ['staging', 'prod']));
    expect(
      await waitFor(
        () =>
          p
            .stdout()
            .includes(
              'claude asks: Deploy where?\n1 staging\n2 prod\nReply with a number, or in your own words.',
            ),
        30_000,
      ),
      p.stderr(),
    ).toBe(true);
    expect(p.stdout()).not.toContain('reply: ');
    say(p, '2');
    expect(await waitFor(() => p.stdout().includes('reply: ask_user ok: prod'), 45_000), p.stderr()).toBe(
      true,
    );
    expect(p.stdout()).toContain('Answer passed to claude.');

    say(p, ask('What shall we call it?'));
    expect(await waitFor(() => p.stdout().includes('claude asks: What shall we call it?'), 45_000)).toBe(
      true,
    );
    say(p, 'call it Atlas');
    expect(await waitFor(() => p.stdout().includes('reply: ask_user ok: call it Atlas'), 45_000)).toBe(true);
    p.child.stdin?.end();
    expect((await p.exit).code).toBe(0);
    // The fake replies "reply: <text>" to any message it is handed: neither answer was one.
    expect(count(p.stdout(), 'reply: ')).toBe(2);
    expect(home.events().filter((e) => e.ev === 'start')).toHaveLength(1);
  }, 180_000);

  it("under permissions 'ask', the person at the terminal answers a warm claude's permission request", async () => {
    home = makeHome({ agent: { mode: 'warm', permissions: 'ask', command: [process.execPath, CLAUDE] } });
    const p = spawnNode([MAIN, 'chat'], home.env);
    chat = p;
    say(p, 'ask now');
    expect(
      await waitFor(
        () =>
          p.stdout().includes('claude wants to run: touch x\n1 allow once · 2 allow for this chat · 3 deny'),
        30_000,
      ),
      p.stderr(),
    ).toBe(true);
    expect(p.stdout()).not.toContain('answered');
    say(p, '1');
    expect(await waitFor(() => p.stdout().includes('answered allow'), 45_000), p.stderr()).toBe(true);
    expect(p.stdout()).toContain('Allowed once: claude wants to run: touch x.');
    p.child.stdin?.end();
    expect((await p.exit).code).toBe(0);
    // The "1" was an answer, not a prompt (the fake answers a prompt "turn N: …").
    expect(p.stdout()).not.toContain('turn ');
  }, 180_000);
});
