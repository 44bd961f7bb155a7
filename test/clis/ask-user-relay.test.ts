// `ask_user` from a warm process of each real CLI that takes MCP, through the whole relay
// (relay-rig.ts: startRelay, queue, warm pool, the tool host, the interactions desk, outbox, store)
// with `agentwire mcp` from dist/, in the netns against the fake model server's `tool` mode. The
// model asks with two choices; the chat gets the numbered question; the person answers `2` with an
// inbound message; the choice's text comes back to the model as the tool's result (read from the
// request the CLI sent next, its tool results only); the turn ends with the model's reply; and the
// answer was never a message of its own (not in the inbox, no second reply).

import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentKind } from '../../src/agents/types.js';
import { resolvePaths } from '../../src/config/paths.js';
import { sqliteFile } from '../../src/store/sqlite/open.js';
import { toolResults } from './fake-model/tools.js';
import { requests, scenario } from './harness.js';
import { type RelayRig, relayRig, waitSent } from './relay-rig.js';

const MAIN = join(process.cwd(), 'dist/cli/bin.js');
const A = '+15550000002';
const CASE_MS = 300_000;
const ROOT = join(homedir(), '.cache', 'agentwire-test-ask-user');

/**
 * The name each CLI gives our tool in the model's request (pi has no MCP). gemini hides any tool
 * named ask_user in ACP mode: it gets ours as ask_person (agents/gemini.ts).
 */
const EXPOSED: Partial<Record<AgentKind, string>> = {
  claude: 'mcp__agentwire__ask_user',
  codex: 'mcp__agentwire__ask_user',
  gemini: 'mcp_agentwire_ask_person',
  opencode: 'agentwire_ask_user',
};
/** codex offers MCP tools directly only to a model outside its catalog (see test/clis/tools.test.ts). */
const MODEL: Partial<Record<AgentKind, string>> = { codex: 'fake-model' };

afterAll(() => rmSync(ROOT, { recursive: true, force: true }));

for (const [kind, exposed] of Object.entries(EXPOSED) as [AgentKind, string][]) {
  describe(`${kind} warm (real CLI): ask_user through the relay`, () => {
    const id = `${kind}-ask-user-${randomUUID().slice(0, 8)}`;
    let rig: RelayRig;

    beforeAll(async () => {
      mkdirSync(ROOT, { recursive: true, mode: 0o700 });
      // gemini skips a settings file with a world-writable folder above it (/tmp): a home one.
      const dir = mkdtempSync(join(ROOT, `${kind}-`));
      const model = MODEL[kind];
      rig = relayRig(kind, await scenario(id, { reply: 'Noted.' }), {
        dir,
        toolsEntry: { command: process.execPath, args: [MAIN] },
        ...(model !== undefined && { model }),
      });
      await rig.start();
    });
    afterAll(async () => {
      await rig?.stop();
    });

    it('the question reaches the chat numbered; the answer `2` goes back to the model as the result', {
      timeout: CASE_MS,
    }, async () => {
      // The chosen text appears nowhere but in the second choice: the model learns it only from the answer.
      const picked = `wipe-the-cache-${randomUUID().slice(0, 6)}`;
      await scenario(id, {
        mode: 'tool',
        tool: { name: exposed, input: { question: 'Which way?', choices: ['keep the cache', picked] } },
        reply: 'Going ahead.',
      });
      const n = rig.sent.length;
      await rig.type(A, 'tidy up, but ask me first');
      const q = await waitSent(
        rig,
        n,
        (t) => t.includes('asks: Which way?'),
        180_000,
        (t) => t === 'Going ahead.' || t.startsWith('fake-model:'),
      );
      expect(q.chatId).toBe(A);
      expect(q.text).toBe(
        `${kind} asks: Which way?\n1 keep the cache\n2 ${picked}\nReply with a number, or in your own words.`,
      );

      await rig.type(A, '2');
      await rig.relay().queue.whenIdle();
      expect(rig.sent.slice(n).map((s) => `${s.chatId} ${s.text}`)).toEqual([
        `${A} ${q.text}`,
        `${A} Answer passed to ${kind}.`,
        `${A} Going ahead.`,
      ]);

      // The model was asked again with the tool's result, and that result is the chosen text.
      const seen = (await requests(id)).filter((r) => r.kind === 'model');
      expect(seen.map((r) => r.answer)).toContain(`tool ${exposed}`);
      const last = seen.at(-1);
      expect(last?.answer).toBe('text');
      expect(toolResults(last?.api ?? 'anthropic', last?.body as Record<string, unknown>)).toContain(picked);

      // The answer was recorded on the question, and was never a message to run.
      expect(rig.inbox()).toEqual([
        { text: 'tidy up, but ask me first', status: 'done', note: null },
        { text: '2', status: 'done', note: 'answer' },
      ]);
      const db = new DatabaseSync(sqliteFile(resolvePaths({ AGENTWIRE_HOME: rig.dir }).home), {
        readOnly: true,
      });
      try {
        const rows = db.prepare('SELECT type, status, answer FROM interactions').all();
        expect(rows.map((r) => ({ ...r }))).toEqual([
          { type: 'question', status: 'answered', answer: picked },
        ]);
      } finally {
        db.close();
      }
    });
  });
}
