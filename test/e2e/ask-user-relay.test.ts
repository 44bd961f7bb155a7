// `ask_user` end to end through the built relay (`agentwire relay` from dist/, a real child process)
// and signed Twilio webhooks. In a warm turn, the agent is a warm fake claude that is a
// real MCP client (fixtures/fake-tool-claude-stream.mjs): it starts `agentwire mcp` from dist/ from
// its --mcp-config file and calls ask_user; the question reaches the (fake) Twilio REST API, the
// person's next SMS is the tool's result, and that SMS never becomes a run. In a cold run (the
// one-shot fixtures/fake-tool-cli.mjs) the call is refused with the sentence the agent reads. A
// question nobody answers ends in "no answer" on time, past a shorter turn limit.
// Needs `npm run build` first.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ASK_NEEDS_WARM } from '../../src/tools/handlers.js';
import { type Home, MAIN } from './helpers.js';
import { type Rig, startRig } from './interact-rig.js';

const WARM_TOOL_CLI = join(import.meta.dirname, 'fixtures', 'fake-tool-claude-stream.mjs');
const TOOL_CLI = join(import.meta.dirname, 'fixtures', 'fake-tool-cli.mjs');

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});
beforeAll(() => {
  expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
});

const ask = (question: string, choices?: string[]) =>
  `TOOLS: ${JSON.stringify([{ name: 'ask_user', arguments: { question, ...(choices && { choices }) } }])}`;

/** The warm fake's tool calls, one line per batch, as it saw their results. */
function calls(h: Home): { name: string; isError: boolean; text: string }[] {
  const file = `${h.fakeLog}.tools`;
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .flatMap((l) => JSON.parse(l).calls)
    : [];
}

describe('ask_user through the built relay and a signed Twilio webhook', () => {
  it('a warm turn asks; "2" picks the second choice, free text is the answer as typed; neither answer is a run', async () => {
    const r = await startRig({ agent: { mode: 'warm', command: [process.execPath, WARM_TOOL_CLI] } });
    rig = r;
    r.start();
    expect(await r.sms(ask('Deploy where?', ['staging', 'prod']))).toBe(200);
    await r.sent('claude asks: Deploy where?\n1 staging\n2 prod\nReply with a number, or in your own words.');
    // The turn is waiting on the person: no reply yet.
    expect(r.bodies().some((b) => b.startsWith('reply: '))).toBe(false);
    expect(await r.sms('2')).toBe(200);
    await r.sent('reply: ask_user ok: prod');
    await r.sent('Answer passed to claude.');

    expect(await r.sms(ask('What shall we call it?'))).toBe(200);
    await r.sent('claude asks: What shall we call it?\nYour next message is the answer.');
    expect(await r.sms('call it Atlas')).toBe(200);
    await r.sent('reply: ask_user ok: call it Atlas');
    await r.sent('Answer passed to claude.', { times: 2 });

    expect(calls(r.home)).toEqual([
      { name: 'ask_user', isError: false, text: 'prod' },
      { name: 'ask_user', isError: false, text: 'call it Atlas' },
    ]);
    // The fake replies "reply: <text>" to any message it is handed: neither answer was one.
    expect(r.bodies().filter((b) => b.startsWith('reply: '))).toEqual([
      'reply: ask_user ok: prod',
      'reply: ask_user ok: call it Atlas',
    ]);
    // One warm process served both turns.
    expect(r.home.events().filter((e) => e.ev === 'start')).toHaveLength(1);
  }, 180_000);

  it('a question nobody answers: the agent gets "no answer" on time and replies, though the turn\'s limit is shorter than the wait', async () => {
    const r = await startRig({
      // The wait (15 s) is longer than the turn's limit (10 s): the turn timer leaves out person
      // waits. The limit still covers the time before the question (the fake and the `agentwire
      // mcp` it starts, from dist/): at 2 s a loaded machine ended the turn before it asked.
      agent: { mode: 'warm', timeoutSeconds: 10, command: [process.execPath, WARM_TOOL_CLI] },
      extra: { tools: { askTimeoutMinutes: 0.25 } },
    });
    rig = r;
    r.start();
    expect(await r.sms(ask('Deploy?', ['yes', 'no']))).toBe(200);
    await r.sent(/^claude asks: Deploy\?\n1 yes\n2 no\n/);
    await r.sent('No answer in 15 s: claude goes on without one.', { ms: 45_000 });
    await r.sent(
      'reply: ask_user ok: no answer (nobody replied within 15 seconds, or the run was stopped): go on without it, or ask in your final answer.',
      { ms: 45_000 },
    );
    expect(r.bodies().some((b) => /stopped waiting|took too long/.test(b))).toBe(false);
  }, 180_000);

  it('a cold run is refused ask_user with the clear sentence, and the chat is asked nothing', async () => {
    const r = await startRig({ agent: { mode: 'cold', command: [process.execPath, TOOL_CLI] } });
    rig = r;
    r.start();
    expect(await r.sms(ask('Deploy?', ['a', 'b']))).toBe(200);
    await r.sent(`reply: ask_user error: ${ASK_NEEDS_WARM}`);
    expect(r.bodies().filter((b) => b.includes('asks: '))).toEqual([]);
  }, 180_000);
});
