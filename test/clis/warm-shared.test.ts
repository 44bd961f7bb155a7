// Two chats served by one live process of a real CLI, each in its own session (codex app-server
// threads; ACP sessions of gemini and opencode), through the whole relay (relay-rig.ts), in the netns against
// the fake model server: one process for both chats, and each chat's model request carries its
// own words and never the other chat's. codex has agentwire's tools on (it takes them per thread);
// gemini and opencode run without them, since they take them per process (docs/warm-agents.md), and a process
// holding one chat's token is never shared.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requests, scenario } from './harness.js';
import { type RelayRig, relayRig } from './relay-rig.js';

const A = '+15550000011';
const B = '+15550000012';
const CASE_MS = 240_000;
const MAIN = join(process.cwd(), 'dist/cli/bin.js');

describe.each([
  { kind: 'codex' as const, tools: true },
  { kind: 'gemini' as const, tools: false },
  { kind: 'opencode' as const, tools: false },
])('$kind: two chats, one process, two sessions (real CLI)', ({ kind, tools }) => {
  const id = `${kind}-shared-${randomUUID().slice(0, 8)}`;
  const wordA = `papaya-${randomUUID().slice(0, 6)}`;
  const wordB = `quince-${randomUUID().slice(0, 6)}`;
  let rig: RelayRig;
  const set = (reply: string) => scenario(id, { reply });
  let procs: number[] = [];
  const lastBody = async () => JSON.stringify((await requests(id)).at(-1)?.body ?? '');
  const heardSince = (n: number) => rig.sent.slice(n).map((s) => `${s.chatId} ${s.text}`);

  beforeAll(async () => {
    // codex offers MCP tools directly only to a model outside its catalog (test/clis/tools.test.ts).
    const withTools = { toolsEntry: { command: process.execPath, args: [MAIN] }, model: 'fake-model' };
    rig = relayRig(kind, await set('Noted.'), tools ? withTools : { tools });
    await rig.start({ sessionsPerProcess: 2 });
  });
  afterAll(async () => {
    await rig?.stop();
  });

  it("each chat's request carries its own words only, from one process", { timeout: CASE_MS }, async () => {
    let n = rig.sent.length;
    await rig.say(A, `Remember ${wordA}.`);
    expect(heardSince(n)).toEqual([`${A} Noted.`]);
    procs = rig.processes();
    expect(procs).toHaveLength(1);

    n = rig.sent.length;
    await rig.say(B, `Remember ${wordB}.`);
    expect(heardSince(n)).toEqual([`${B} Noted.`]);
    // B joined A's process, in a session of its own: A's word is not in B's request.
    expect(rig.processes()).toEqual(procs);
    let body = await lastBody();
    expect(body).toContain(wordB);
    expect(body).not.toContain(wordA);

    await set('It was the fruit.');
    n = rig.sent.length;
    await rig.say(A, 'Which word?');
    expect(heardSince(n)).toEqual([`${A} It was the fruit.`]);
    expect(rig.processes()).toEqual(procs);
    body = await lastBody();
    expect(body).toContain(wordA);
    expect(body).toContain('Which word?');
    expect(body).not.toContain(wordB);
  });

  // Only the CLI that takes the tools per session (codex) has a tool row: gemini and opencode run
  // without them here (see the header), so the row is not defined for them rather than skipped.
  if (tools)
    it("a tool call acts for its own chat: each thread has its chat's token", {
      timeout: CASE_MS,
    }, async () => {
      for (const [chat, text] of [
        [B, 'for B only'],
        [A, 'for A only'],
      ] as const) {
        await scenario(id, {
          mode: 'tool',
          tool: { name: 'mcp__agentwire__send_message', input: { text } },
          reply: 'Done.',
        });
        const n = rig.sent.length;
        await rig.say(chat, 'work on it');
        expect(heardSince(n)).toEqual([`${chat} ${text}`, `${chat} Done.`]);
      }
      expect(rig.processes()).toEqual(procs);
    });
});
