// Approvals and ask_user through the relay and a signed Twilio webhook (issue 17). The warm drivers
// that call the Approver under `permissions: 'ask'` are another branch's (approvals); here the test
// stands in for that driver and calls the relay's own Approver while a real run of a fake claude (a
// real MCP client, fixtures/fake-tool-cli.mjs) is under way. Everything else is real: the webhook
// and its signature, the Twilio channel's dedupe, the routing of the answer, the store, the outbox,
// the (fake) Twilio API, and a restart over the same state folder. Needs `npm run build` first.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TOOLS_SOCKET_ENV, TOOLS_TOKEN_ENV } from '../../src/agents/tool-server.js';
import type { ApprovalAnswer } from '../../src/agents/types.js';
import { CHANNELS } from '../../src/channels/registry.js';
import type { TwilioChannel } from '../../src/channels/twilio/index.js';
import type { ChatKey } from '../../src/core/types.js';
import { type RunningRelay, startRelay } from '../../src/relay.js';
import { ASK_NEEDS_WARM } from '../../src/tools/handlers.js';
import {
  type FakeTwilio,
  fakeTwilioSection,
  startFakeTwilio,
} from '../channels/twilio/helpers/fake-twilio.js';
import { smsParams, twilioPost } from '../channels/twilio/helpers/harness.js';
import { type Home, makeHome, ROOT, waitFor } from './helpers.js';

const BIN = join(ROOT, 'dist/cli/bin.js');
const TOOL_CLI = join(import.meta.dirname, 'fixtures', 'fake-tool-cli.mjs');
const CHAT = 'twilio:+15551234567' as ChatKey;

let home: Home | undefined;
let relay: RunningRelay | undefined;
let fake: FakeTwilio | undefined;
afterEach(async () => {
  await relay?.stop(0);
  await fake?.close();
  home?.cleanup();
  relay = undefined;
  fake = undefined;
  home = undefined;
});
beforeAll(() => {
  expect(existsSync(BIN), 'build first: npm run build').toBe(true);
});

const tools = (calls: unknown[]) => `TOOLS: ${JSON.stringify(calls)}`;
let sid = 0;
const nextSid = () => `SM${String(++sid).padStart(32, '0')}`;

async function start(h: Home): Promise<{ relay: RunningRelay; url: string }> {
  const r = await startRelay(h.ctx(), {
    channels: CHANNELS.filter((f) => f.name === 'twilio'),
    services: [],
    toolsEntry: { command: process.execPath, args: [BIN] },
  });
  relay = r;
  return {
    relay: r,
    url: `http://127.0.0.1:${(r.channels.get('twilio') as TwilioChannel).port()}/twilio/inbound`,
  };
}

describe('approvals and ask_user through the relay (Twilio)', () => {
  it('the owner answers 1 by SMS once; a redelivered webhook answers nothing; a cold run is refused ask_user', async () => {
    fake = await startFakeTwilio();
    home = makeHome({ agent: { command: [process.execPath, TOOL_CLI] }, twilio: fakeTwilioSection(fake) });
    const { relay: r, url } = await start(home);
    const bodies = (): string[] => fake?.created.map((m) => m.body ?? '') ?? [];
    // A run that works a while, then tries ask_user (cold here: refused).
    const prompt = tools([{ sleep: 4000 }, { name: 'ask_user', arguments: { question: 'Deploy?' } }]);
    expect((await twilioPost(url, smsParams({ MessageSid: nextSid(), Body: prompt }))).status).toBe(200);
    expect(await waitFor(() => Boolean(r.queue.lanes.get(CHAT)), 10_000)).toBe(true);

    // The warm driver's part: ask the run's Approver.
    const approve = r.queue.interactions?.approver(CHAT, 'in:1', 'codex');
    expect(approve).toBeDefined();
    const answer: Promise<ApprovalAnswer> | undefined = approve?.(
      { toolKind: 'shell', summary: 'run: rm -rf build/' },
      new AbortController().signal,
    );
    expect(
      await waitFor(
        () =>
          bodies().includes(
            'codex wants to run: rm -rf build/\n1 allow once · 2 allow for this chat · 3 deny',
          ),
        10_000,
      ),
    ).toBe(true);

    const one = smsParams({ MessageSid: nextSid(), Body: '1' });
    expect((await twilioPost(url, one)).status).toBe(200);
    expect(await answer).toEqual({ type: 'allow_once' });
    // Twilio retries a webhook it thinks failed: the same message answers nothing again.
    expect((await twilioPost(url, one)).status).toBe(200);

    expect(await waitFor(() => bodies().some((b) => b.startsWith('reply: ')), 30_000)).toBe(true);
    const reply = bodies().find((b) => b.startsWith('reply: ')) ?? '';
    expect(reply).toContain(`ask_user error: ${ASK_NEEDS_WARM}`);
    expect(
      bodies().filter((b) => b.startsWith('Allowed once: codex wants to run: rm -rf build/')),
    ).toHaveLength(1);
    // The 1 never became a run of its own.
    await r.queue.whenIdle();
    expect(bodies().filter((b) => b.startsWith('reply: '))).toHaveLength(1);
  }, 60_000);

  it('a restart denies the approval left waiting and says so by SMS; /approvals and /status show the state', async () => {
    fake = await startFakeTwilio();
    home = makeHome({ agent: { command: [process.execPath, TOOL_CLI] }, twilio: fakeTwilioSection(fake) });
    const first = await start(home);
    const bodies = (): string[] => fake?.created.map((m) => m.body ?? '') ?? [];
    void first.relay.queue.interactions?.approver(
      CHAT,
      'in:9',
      'codex',
    )({ toolKind: 'shell', summary: 'run: make deploy' }, new AbortController().signal);
    expect(
      await waitFor(() => bodies().some((b) => b.startsWith('codex wants to run: make deploy')), 10_000),
    ).toBe(true);
    await twilioPost(first.url, smsParams({ MessageSid: nextSid(), Body: '/status' }));
    expect(
      await waitFor(
        () =>
          bodies().some((b) =>
            /Waiting for an answer \(1\):\ncodex wants to run: make deploy \(asked/.test(b),
          ),
        10_000,
      ),
    ).toBe(true);

    await first.relay.stop(0);
    relay = undefined;
    const second = await start(home);
    expect(
      await waitFor(
        () => bodies().includes('The relay restarted: codex wants to run: make deploy: denied.'),
        10_000,
      ),
    ).toBe(true);
    await twilioPost(second.url, smsParams({ MessageSid: nextSid(), Body: '/approvals' }));
    expect(
      await waitFor(
        () =>
          bodies().includes(
            'Nothing is allowed for this chat: the agent asks each time.\nNothing is waiting for an answer.',
          ),
        10_000,
      ),
    ).toBe(true);
  }, 60_000);

  it('ask_user in an interactive turn: `agentwire mcp` waits, the question goes out by SMS, the reply is the answer', async () => {
    fake = await startFakeTwilio();
    home = makeHome({ agent: { command: [process.execPath, TOOL_CLI] }, twilio: fakeTwilioSection(fake) });
    const { relay: r, url } = await start(home);
    const bodies = (): string[] => fake?.created.map((m) => m.body ?? '') ?? [];
    // What a warm turn's grant looks like (the warm MCP wiring is another branch's): interactive.
    const token = r.tools.tokens.mint(
      { chat: CHAT, runKey: 'in:77', cwd: home.dir, interactive: true },
      120_000,
    );
    const client = new Client({ name: 'e2e', version: '0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'mcp'],
        env: {
          PATH: process.env.PATH ?? '',
          [TOOLS_TOKEN_ENV]: token,
          [TOOLS_SOCKET_ENV]: home.ctx().paths.socket,
        },
        stderr: 'ignore',
      }),
    );
    try {
      const call = client.callTool(
        { name: 'ask_user', arguments: { question: 'Deploy where?', choices: ['staging', 'prod'] } },
        undefined,
        { timeout: 60_000 },
      );
      expect(
        await waitFor(
          () =>
            bodies().includes(
              'the agent asks: Deploy where?\n1 staging\n2 prod\nReply with a number, or in your own words.',
            ),
          15_000,
        ),
      ).toBe(true);
      expect((await twilioPost(url, smsParams({ MessageSid: nextSid(), Body: '2' }))).status).toBe(200);
      const res = await call;
      expect({ isError: Boolean(res.isError), text: (res.content as { text: string }[])[0]?.text }).toEqual({
        isError: false,
        text: 'prod',
      });
      expect(await waitFor(() => bodies().includes('Answer passed to the agent.'), 10_000)).toBe(true);
      // The answer was not a message to run.
      await r.queue.whenIdle();
      expect(bodies().some((b) => b.startsWith('reply: '))).toBe(false);
    } finally {
      await client.close();
    }
  }, 60_000);
});
