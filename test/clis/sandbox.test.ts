// Each real CLI warm inside the bwrap sandbox (agent.sandbox: bwrap), through the whole relay
// (relay-rig.ts) with agentwire's tools from dist/, in the netns against the fake model server: a
// turn whose model calls send_message (the MCP helper inside the sandbox reaches the relay through
// the tools socket bound in), a second turn in the same process that sees the first, and a relay
// restart that resumes the session in a new sandboxed process. The process the relay started is
// bwrap, and the CLI under it sees none of the relay's files.
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentKind } from '../../src/agents/types.js';
import { bwrapMissing } from '../helpers/bwrap.js';
import { requests, scenario } from './harness.js';
import { type RelayRig, relayRig } from './relay-rig.js';
import { geminiNextMinute } from './warm-relay.js';

const MAIN = join(process.cwd(), 'dist/cli/bin.js');
const A = '+15550000001';
const CASE_MS = 240_000;
const ROOT = join(homedir(), '.cache', 'agentwire-test-sandbox');
const missing = bwrapMissing();

const EXPOSED: Record<string, (tool: string) => string> = {
  claude: (t) => `mcp__agentwire__${t}`,
  codex: (t) => `mcp__agentwire__${t}`,
  gemini: (t) => `mcp_agentwire_${t}`,
  opencode: (t) => `agentwire_${t}`,
  pi: (t) => t,
};
const MODEL: Partial<Record<AgentKind, string>> = { codex: 'fake-model' };
const only = process.env.AGENTWIRE_SANDBOX_CLIS?.split(',');

afterAll(() => rmSync(ROOT, { recursive: true, force: true }));

for (const [kind, exposed] of Object.entries(EXPOSED)) {
  if (only && !only.includes(kind)) continue;
  describe.skipIf(missing)(
    `${kind} warm inside the bwrap sandbox (real CLI)${missing ? ` (skipped: ${missing})` : ''}`,
    () => {
      const id = `${kind}-sandbox-${randomUUID().slice(0, 8)}`;
      const word = `quince-${randomUUID().slice(0, 6)}`;
      let rig: RelayRig;
      let pid = 0;
      let lastReply = 0;
      const set = (sc: Parameters<typeof scenario>[1]) => scenario(id, sc);

      beforeAll(async () => {
        mkdirSync(ROOT, { recursive: true, mode: 0o700 });
        const dir = mkdtempSync(join(ROOT, `${kind}-`));
        const model = MODEL[kind];
        rig = relayRig(kind, await set({ reply: 'Noted.' }), {
          dir,
          toolsEntry: { command: process.execPath, args: [MAIN] },
          sandbox: 'bwrap',
          ...(model !== undefined && { model }),
        });
        await rig.start();
      });
      afterAll(async () => {
        await rig?.stop();
      });

      it('a turn whose model calls a tool: the message and the answer reach the chat', {
        timeout: CASE_MS,
      }, async () => {
        await set({
          mode: 'tool',
          tool: { name: exposed('send_message'), input: { text: `remember ${word}` } },
          reply: 'Done.',
        });
        const n = rig.sent.length;
        await rig.say(A, `Remember ${word}.`);
        expect(rig.sent.slice(n).map((s) => `${s.chatId} ${s.text}`)).toEqual([
          `${A} remember ${word}`,
          `${A} Done.`,
        ]);
        const procs = rig.processes();
        expect(procs).toHaveLength(1);
        pid = procs[0] as number;
        // The relay's child is bwrap; the CLI runs under it.
        expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0]).toMatch(/bwrap$/);
      });

      it('a second turn in the same sandboxed process sees the first', { timeout: CASE_MS }, async () => {
        await set({ reply: 'It was the fruit.' });
        const n = rig.sent.length;
        await rig.say(A, 'Which word?');
        expect(rig.sent.slice(n).map((s) => `${s.chatId} ${s.text}`)).toEqual([`${A} It was the fruit.`]);
        expect(rig.processes()).toEqual([pid]);
        lastReply = Date.now();
        expect(JSON.stringify((await requests(id)).at(-1)?.body ?? '')).toContain(word);
      });

      it('a relay restart resumes the session in a new sandboxed process', { timeout: CASE_MS }, async () => {
        await rig.stop();
        await geminiNextMinute(kind as AgentKind, lastReply);
        await rig.start();
        await set({ reply: 'Back after the restart.' });
        const n = rig.sent.length;
        await rig.say(A, 'Do you remember me?');
        expect(rig.sent.slice(n).map((s) => `${s.chatId} ${s.text}`)).toEqual([
          `${A} Back after the restart.`,
        ]);
        const procs = rig.processes();
        expect(procs).toHaveLength(1);
        expect(procs[0]).not.toBe(pid);
        expect(readFileSync(`/proc/${procs[0]}/cmdline`, 'utf8').split('\0')[0]).toMatch(/bwrap$/);
        const body = JSON.stringify((await requests(id)).at(-1)?.body ?? '');
        expect(body).toContain(word);
        expect(body).toContain('Do you remember me?');
      });
    },
  );
}

// Cold (one process per message; heartbeats and schedules run this way even for a warm agent): the
// tool files of the run are shown to the CLI inside, and the next message resumes its session.
for (const kind of ['claude', 'codex'] as const) {
  if (only && !only.includes(kind)) continue;
  describe.skipIf(missing)(
    `${kind} cold inside the bwrap sandbox (real CLI)${missing ? ` (skipped: ${missing})` : ''}`,
    () => {
      const id = `${kind}-sandbox-cold-${randomUUID().slice(0, 8)}`;
      const word = `medlar-${randomUUID().slice(0, 6)}`;
      let rig: RelayRig;
      const set = (sc: Parameters<typeof scenario>[1]) => scenario(id, sc);

      beforeAll(async () => {
        mkdirSync(ROOT, { recursive: true, mode: 0o700 });
        const dir = mkdtempSync(join(ROOT, `${kind}-cold-`));
        const model = MODEL[kind];
        rig = relayRig(kind, await set({ reply: 'Noted.' }), {
          dir,
          toolsEntry: { command: process.execPath, args: [MAIN] },
          sandbox: 'bwrap',
          mode: 'cold',
          ...(model !== undefined && { model }),
        });
        await rig.start();
      });
      afterAll(async () => {
        await rig?.stop();
      });

      it('a tool call, then a resumed turn that sees it', { timeout: CASE_MS }, async () => {
        await set({
          mode: 'tool',
          tool: { name: EXPOSED[kind]?.('send_message') ?? '', input: { text: `remember ${word}` } },
          reply: 'Done.',
        });
        let n = rig.sent.length;
        await rig.say(A, `Remember ${word}.`);
        expect(rig.sent.slice(n).map((s) => `${s.chatId} ${s.text}`)).toEqual([
          `${A} remember ${word}`,
          `${A} Done.`,
        ]);
        await set({ reply: 'It was the fruit.' });
        n = rig.sent.length;
        await rig.say(A, 'Which word?');
        expect(rig.sent.slice(n).map((s) => `${s.chatId} ${s.text}`)).toEqual([`${A} It was the fruit.`]);
        expect(JSON.stringify((await requests(id)).at(-1)?.body ?? '')).toContain(word);
      });
    },
  );
}
