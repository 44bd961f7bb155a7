// agentwire's tools from a warm process of each real CLI, through the whole relay
// (relay-rig.ts: startRelay, queue, warm pool, tool host on the relay's control socket, outbox,
// store) with `agentwire mcp` from dist/, in the netns against the fake model server's `tool` mode.
// In one chat, one process: the first turn's model calls send_message (the message reaches the
// chat once, before the answer), the second turn's calls schedule_task (the task is stored for the
// chat), and both turns ran in the same process: its token, bound to each turn's run, serves both.

import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentKind } from '../../src/agents/types.js';
import { resolvePaths } from '../../src/config/paths.js';
import { sqliteFile } from '../../src/store/sqlite/open.js';
import { requests, scenario } from './harness.js';
import { type RelayRig, relayRig } from './relay-rig.js';

const MAIN = join(process.cwd(), 'dist/cli/bin.js');
const A = '+15550000001';
const CASE_MS = 240_000;
const ROOT = join(homedir(), '.cache', 'agentwire-test-warm-tools');

/** The name each CLI gives our tool in the model's request (pi: its extension's own names). */
const EXPOSED: Partial<Record<AgentKind, (tool: string) => string>> = {
  claude: (t) => `mcp__agentwire__${t}`,
  codex: (t) => `mcp__agentwire__${t}`,
  gemini: (t) => `mcp_agentwire_${t}`,
  opencode: (t) => `agentwire_${t}`,
  pi: (t) => t,
};
/** codex offers MCP tools directly only to a model outside its catalog (see test/clis/tools.test.ts). */
const MODEL: Partial<Record<AgentKind, string>> = { codex: 'fake-model' };

afterAll(() => rmSync(ROOT, { recursive: true, force: true }));

for (const [kind, exposed] of Object.entries(EXPOSED) as [AgentKind, (t: string) => string][]) {
  describe(`${kind} warm (real CLI) with agentwire's tools, through the relay`, () => {
    const id = `${kind}-warm-tools-${randomUUID().slice(0, 8)}`;
    let rig: RelayRig;
    let pid = 0;
    const set = (sc: Parameters<typeof scenario>[1]) => scenario(id, sc);

    beforeAll(async () => {
      mkdirSync(ROOT, { recursive: true, mode: 0o700 });
      // gemini skips a settings file with a world-writable folder above it (/tmp): a home one.
      const dir = mkdtempSync(join(ROOT, `${kind}-`));
      const model = MODEL[kind];
      rig = relayRig(kind, await set({ reply: 'Noted.' }), {
        dir,
        // pi gets the file a built relay names to it (relay-tools.ts agentwireEntry): the bundle.
        toolsEntry: {
          command: process.execPath,
          args: [MAIN],
          toolExtension: join(process.cwd(), 'dist/tool-extension-bundle.js'),
        },
        ...(model !== undefined && { model }),
      });
      await rig.start();
    });
    afterAll(async () => {
      await rig?.stop();
    });

    const db = () =>
      new DatabaseSync(sqliteFile(resolvePaths({ AGENTWIRE_HOME: rig.dir }).home), { readOnly: true });

    it('turn 1: the model calls send_message; the chat gets it once, before the answer', {
      timeout: CASE_MS,
    }, async () => {
      await set({
        mode: 'tool',
        tool: { name: exposed('send_message'), input: { text: 'halfway there' } },
        reply: 'Done.',
      });
      const n = rig.sent.length;
      await rig.say(A, 'work on it');
      expect(rig.sent.slice(n).map((s) => `${s.chatId} ${s.text}`)).toEqual([
        `${A} halfway there`,
        `${A} Done.`,
      ]);
      const seen = await requests(id);
      expect(seen.map((q) => q.answer)).toContain(`tool ${exposed('send_message')}`);
      // The tool's answer reached the model: this run's counter, from a fresh run.
      expect(JSON.stringify(seen.at(-1)?.body)).toContain('9 more this run');
      const procs = rig.processes();
      expect(procs).toHaveLength(1);
      pid = procs[0] as number;
      const d = db();
      try {
        const keys = d
          .prepare("SELECT key FROM outbox WHERE key LIKE 'tool:%'")
          .all()
          .map((r) => r.key);
        expect(keys).toEqual([expect.stringMatching(/^tool:in:\d+:msg:1$/)]);
      } finally {
        d.close();
      }
    });

    it('turn 2, same process: the model calls schedule_task; the task is stored for the chat', {
      timeout: CASE_MS,
    }, async () => {
      const prompt = `check the ${kind} build`;
      await set({
        mode: 'tool',
        tool: { name: exposed('schedule_task'), input: { prompt, every: '2h' } },
        reply: 'Scheduled.',
      });
      const n = rig.sent.length;
      await rig.say(A, 'remind me');
      expect(rig.sent.slice(n).map((s) => `${s.chatId} ${s.text}`)).toEqual([`${A} Scheduled.`]);
      expect(rig.processes()).toEqual([pid]);
      expect(JSON.stringify((await requests(id)).at(-1)?.body)).toContain('Scheduled task');
      const d = db();
      try {
        const rows = d.prepare('SELECT chat, prompt, every FROM agent_tasks').all();
        expect(rows.map((r) => [r.chat, r.prompt, r.every])).toEqual([[`twilio:${A}`, prompt, '2h']]);
      } finally {
        d.close();
      }
    });
  });
}
