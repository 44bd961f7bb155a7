// agentwire's newer tools through every real CLI (docs/tools.md), cold and warm: the fake model calls
// edit_message, add_reaction, update_task, a tool of the user's own MCP server (tools.servers,
// offered as `fake__echo`) and a user's script (tools.scripts, `script__note`), one call a turn, and
// each is checked from the far side: the edit and the reaction stored once in the outbox for the
// right message, the task changed in place, the user's server and script logging the arguments they
// were called with.
// Cold: runCommandReply against one shared tool host (tool-host-rig.ts) on a telegram chat (a
// channel that can edit and react). Warm: one relay per CLI (relay-rig.ts, a recording telegram
// channel), one process serving every turn. The ACP agent (`agent.kind: 'acp'`) is opencode's
// `opencode acp`, warm only. Rows run one after another; each CLI's rows share their set-up.
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSpec } from '../../src/agents/registry.js';
import { newSession } from '../../src/agents/resolve.js';
import { TOOLS_TOKEN_ENV } from '../../src/agents/tool-server.js';
import type { AgentKind } from '../../src/agents/types.js';
import { resolvePaths } from '../../src/config/paths.js';
import type { ChatKey } from '../../src/core/types.js';
import { createLogger } from '../../src/log.js';
import { runCommandReply } from '../../src/runner/run-command-reply.js';
import { sqliteFile, storeOver } from '../../src/store/sqlite/open.js';
import { tasksForChat } from '../../src/store/sqlite/tasks.js';
import { createUserTools } from '../../src/tools/user-tools.js';
import { requests, scenario, turn } from './harness.js';
import { type RelayRig, relayRig } from './relay-rig.js';
import { startToolHost, type ToolHostRig } from './tool-host-rig.js';
import { calls, editRows, userTools } from './toolset-fixtures.js';

const MAIN = join(process.cwd(), 'dist/cli/bin.js');
const ROOT = join(homedir(), '.cache', 'agentwire-test-toolset');
const CASE_MS = 240_000;
/** A telegram chat: its plug-in can edit and react, so the tools decide from its capabilities. */
const CHAT_ID = '4242';
const CHAT: ChatKey = `telegram:${CHAT_ID}`;

interface Row {
  /** The CLI whose program and offline set-up are used. */
  kind: AgentKind;
  /** The label of the row (the ACP agent runs opencode's ACP mode as `agent.kind: 'acp'`). */
  label: string;
  /** The name the CLI gives a tool of our MCP server in the model's request (pi: its extension's). */
  exposed: (tool: string) => string;
  /** Why the row has no cold mode, when it has none. */
  noCold?: string;
  model?: string;
  agentKind?: 'acp';
  args?: string[];
}

/** codex offers MCP tools directly only to a model outside its catalog (see test/clis/tools.test.ts). */
const ROWS: Row[] = [
  { kind: 'claude', label: 'claude', exposed: (t) => `mcp__agentwire__${t}` },
  { kind: 'codex', label: 'codex', exposed: (t) => `mcp__agentwire__${t}`, model: 'fake-model' },
  { kind: 'pi', label: 'pi', exposed: (t) => t },
  { kind: 'opencode', label: 'opencode', exposed: (t) => `agentwire_${t}` },
  { kind: 'gemini', label: 'gemini', exposed: (t) => `mcp_agentwire_${t}` },
  {
    kind: 'opencode',
    label: 'the ACP agent (opencode acp)',
    exposed: (t) => `agentwire_${t}`,
    agentKind: 'acp',
    args: ['acp'],
    // The spec's own sentence: an ACP agent has no one-shot mode, so there is no cold run to make.
    noCold: getSpec('acp').warmOnly ? 'the ACP agent runs only warm (it has no one-shot mode)' : undefined,
  },
];

beforeAll(() => mkdirSync(ROOT, { recursive: true, mode: 0o700 }));
afterAll(() => rmSync(ROOT, { recursive: true, force: true }));

describe('cold runs (one tool host, runCommandReply)', () => {
  let rig: ToolHostRig;
  let log: string;
  let notes: string;
  beforeAll(async () => {
    const dir = mkdtempSync(join(ROOT, 'cold-'));
    log = join(dir, 'calls.jsonl');
    notes = join(dir, 'notes.jsonl');
    const user = createUserTools({
      ...userTools(log, notes),
      from: process.env,
      log: createLogger({ level: 'silent' }),
    });
    rig = await startToolHost('toolset-cold', undefined, user);
  });
  afterAll(async () => {
    await rig?.host.close();
    await rig?.close();
  });

  for (const row of ROWS) {
    describe(`${row.label} cold`, () => {
      const spec = getSpec(row.kind);
      let state: string;
      beforeAll(() => {
        // Under ROOT, removed with it (a temp folder made in a hook would outlive the file).
        state = mkdtempSync(join(ROOT, `${row.kind}-cold-`));
      });

      /** A cold row, or, where the CLI has no cold mode, the same row skipped with the reason in its name. */
      const coldIt = (name: string, fn: () => Promise<void>) =>
        it.skipIf(row.noCold !== undefined)(
          `${name}${row.noCold ? ` (skipped: ${row.noCold})` : ''}`,
          {
            timeout: CASE_MS,
          },
          fn,
        );

      /** One cold turn whose model calls `tool` with `input`; returns its run key and last request. */
      async function coldCall(tool: string, input: Record<string, unknown>, reply: string) {
        const sc = `${row.kind}-toolset-${tool.replace(/_/g, '-')}-${randomUUID().slice(0, 8)}`;
        const base = await scenario(sc, { mode: 'tool', tool: { name: row.exposed(tool), input }, reply });
        const t = turn(row.kind, state, base, 'go on', newSession(spec), 120_000);
        const runKey = `in:${sc}`;
        const g = rig.grant(CHAT, runKey, 120_000);
        try {
          const r = await runCommandReply(spec, {
            ...t.request,
            stateDir: rig.agentState(),
            ...(row.model !== undefined && { model: row.model }),
            tools: g.server,
          });
          expect(r).toMatchObject({ type: 'ok', text: reply });
        } finally {
          g.release();
        }
        const seen = await requests(sc);
        expect(seen.map((q) => q.answer)).toContain(`tool ${row.exposed(tool)}`);
        return { runKey, last: JSON.stringify(seen.at(-1)?.body) };
      }

      async function seedMessage(): Promise<string> {
        const queue = storeOver(rig.db).queue;
        const key = `seed:${row.kind}:${randomUUID()}`;
        expect((await queue.enqueueReply(CHAT, key, [{ type: 'text', text: 'draft' }], Date.now())).ok).toBe(
          true,
        );
        return `out:${await queue.outboxIdOf(key)}`;
      }

      coldIt(`edit_message: the edit is in the outbox once, for that message`, async () => {
        const id = await seedMessage();
        const text = `final from ${row.kind}`;
        const { runKey, last } = await coldCall('edit_message', { messageId: id, text }, 'Edited it.');
        expect(last).toContain(`Edited ${id}`);
        expect(editRows(rig.db, id).map((r) => [r.key, r.chat, r.item])).toEqual([
          [`tool:${runKey}:edit:1`, CHAT, { type: 'edit', ref: id, text }],
        ]);
      });

      coldIt(`add_reaction: the reaction is in the outbox once, for that message`, async () => {
        const id = await seedMessage();
        const { runKey, last } = await coldCall('add_reaction', { messageId: id, emoji: '👍' }, 'Reacted.');
        expect(last).toContain(`Reacted to ${id}`);
        expect(editRows(rig.db, id).map((r) => [r.key, r.chat, r.item])).toEqual([
          [`tool:${runKey}:react:1`, CHAT, { type: 'react', ref: id, emoji: '👍' }],
        ]);
      });

      coldIt(`update_task: the task is changed in place`, async () => {
        const added = await storeOver(rig.db).tasks.add(
          { chat: CHAT, prompt: `old ${row.kind}`, every: '2h' },
          `seed:${randomUUID()}`,
          50,
          Date.now(),
        );
        if (added.type !== 'added') throw new Error(`not seeded: ${added.type}`);
        const id = added.task.id;
        const prompt = `new ${row.kind} prompt`;
        const { last } = await coldCall('update_task', { id, prompt, every: '3h' }, 'Updated.');
        expect(last).toContain(`Updated`);
        const now = tasksForChat(rig.db, CHAT).filter((t) => t.id === id);
        expect(now.map((t) => [t.prompt, t.every])).toEqual([[prompt, '3h']]);
      });

      coldIt(
        `the user's server's tool (fake__echo): the server got the arguments, the model its answer`,
        async () => {
          const text = `zebra-${row.kind}-cold-${randomUUID().slice(0, 6)}`;
          const { last } = await coldCall('fake__echo', { text }, 'Echoed.');
          expect(last).toMatch(new RegExp(`echo: ${text} \\(call \\d+ of pid \\d+\\)`));
          expect(calls(log).filter((c) => JSON.stringify(c).includes(text))).toEqual([
            { tool: 'echo', args: { text } },
          ]);
        },
      );

      coldIt(
        `the user's script (script__note): the script got the arguments, the model its answer`,
        async () => {
          const text = `okapi-${row.kind}-cold-${randomUUID().slice(0, 6)}`;
          const { last } = await coldCall('script__note', { text }, 'Noted it.');
          expect(last).toContain(`noted: ${text}`);
          expect(calls(notes).filter((c) => JSON.stringify(c).includes(text))).toEqual([{ text }]);
        },
      );
    });
  }
});

// The warm rows run in order on one chat: the edit changes the answer of the user-tool turn, and
// the reaction goes on the edit turn's answer (messages the chat was really sent).
describe('warm runs (one relay per CLI, one process for every turn)', () => {
  for (const row of ROWS) {
    describe(`${row.label} warm`, () => {
      const id = `${row.kind}-toolset-warm-${randomUUID().slice(0, 8)}`;
      let rig: RelayRig;
      let log: string;
      let notes: string;
      let pid = 0;
      const set = (sc: Parameters<typeof scenario>[1]) => scenario(id, sc);

      beforeAll(async () => {
        // gemini skips a settings file with a world-writable folder above it (/tmp): a home one,
        // under ROOT, removed with it (the relay home is its `relay` folder).
        const state = mkdtempSync(join(ROOT, `${row.kind}-`));
        log = join(state, 'calls.jsonl');
        notes = join(state, 'notes.jsonl');
        rig = relayRig(row.kind, await set({ reply: 'Noted.' }), {
          state,
          channel: 'telegram',
          owners: [CHAT],
          toolsEntry: { command: process.execPath, args: [MAIN] },
          toolsConfig: userTools(log, notes),
          ...(row.model !== undefined && { model: row.model }),
          ...(row.agentKind !== undefined && { agentKind: row.agentKind }),
          ...(row.args !== undefined && { args: row.args }),
        });
        await rig.start();
      });
      afterAll(async () => {
        await rig?.stop();
      });

      const db = () =>
        new DatabaseSync(sqliteFile(resolvePaths({ AGENTWIRE_HOME: rig.dir }).home), { readOnly: true });
      const read = <T>(f: (d: DatabaseSync) => T): T => {
        const d = db();
        try {
          return f(d);
        } finally {
          d.close();
        }
      };

      /** The id (out:<n>) of the one message this chat was sent with `text`. */
      const replyRef = (text: string): string => {
        const ids = read((d) =>
          d
            .prepare("SELECT id FROM outbox WHERE chat = ? AND json_extract(item, '$.text') = ? ORDER BY id")
            .all(CHAT, text)
            .map((r) => Number(r.id)),
        );
        expect(ids).toHaveLength(1);
        return `out:${ids[0]}`;
      };

      /** Calls one of our tools as a run of this chat would, through the relay's own tool host. */
      async function seed(tool: string, args: Record<string, unknown>): Promise<string> {
        const host = rig.relay().tools;
        const g = host.grantor?.({
          chat: CHAT,
          sessionKey: CHAT,
          runKey: `seed:${randomUUID()}`,
          cwd: rig.work,
          timeoutMs: 60_000,
        });
        if (!g) throw new Error('tools are on');
        try {
          return (await host.call({ token: g.server.env[TOOLS_TOKEN_ENV], tool, args })).text;
        } finally {
          g.release();
        }
      }

      /** One warm turn whose model calls `tool`; the chat hears `reply` only; the same process serves it. */
      async function warmCall(tool: string, input: Record<string, unknown>, reply: string) {
        await set({ mode: 'tool', tool: { name: row.exposed(tool), input }, reply });
        const n = rig.sent.length;
        await rig.say(CHAT_ID, `please ${tool}`);
        const heard = rig.sent.slice(n).filter((s) => !s.text.startsWith('['));
        expect(heard.map((s) => `${s.chatId} ${s.text}`)).toEqual([`${CHAT_ID} ${reply}`]);
        const procs = rig.processes();
        expect(procs).toHaveLength(1);
        if (pid === 0) pid = procs[0] as number;
        expect(procs).toEqual([pid]);
        const seen = await requests(id);
        expect(seen.map((q) => q.answer)).toContain(`tool ${row.exposed(tool)}`);
        return { last: JSON.stringify(seen.at(-1)?.body), sent: rig.sent.slice(n) };
      }

      it(`the user's server's tool (fake__echo): the server got the arguments, the model its answer`, {
        timeout: CASE_MS,
      }, async () => {
        const text = `zebra-${row.kind}-warm-${randomUUID().slice(0, 6)}`;
        const { last } = await warmCall('fake__echo', { text }, 'Echoed.');
        expect(last).toMatch(new RegExp(`echo: ${text} \\(call \\d+ of pid \\d+\\)`));
        expect(calls(log)).toEqual([{ tool: 'echo', args: { text } }]);
      });

      it('edit_message: the edit is in the outbox once, for that message, and delivered', {
        timeout: CASE_MS,
      }, async () => {
        // The answer of the turn before (a message this chat was sent) is the one edited.
        const ref = replyRef('Echoed.');
        const text = `final from ${row.kind}`;
        const { last, sent } = await warmCall('edit_message', { messageId: ref, text }, 'Edited it.');
        expect(last).toContain(`Edited ${ref}`);
        const rows = read((d) => editRows(d, ref));
        expect(rows.map((r) => [r.chat, r.item])).toEqual([[CHAT, { type: 'edit', ref, text }]]);
        expect(rows[0]?.key).toMatch(/^tool:in:\d+:edit:1$/);
        expect(sent.filter((s) => s.text.startsWith('[edit')).map((s) => s.text)).toEqual([
          expect.stringMatching(new RegExp(`^\\[edit p\\d+\\] ${text}$`)),
        ]);
      });

      it('add_reaction: the reaction is in the outbox once, for that message, and delivered', {
        timeout: CASE_MS,
      }, async () => {
        const ref = replyRef('Edited it.');
        const { last, sent } = await warmCall('add_reaction', { messageId: ref, emoji: '👍' }, 'Reacted.');
        expect(last).toContain(`Reacted to ${ref}`);
        const rows = read((d) => editRows(d, ref));
        expect(rows.map((r) => [r.chat, r.item])).toEqual([[CHAT, { type: 'react', ref, emoji: '👍' }]]);
        expect(rows[0]?.key).toMatch(/^tool:in:\d+:react:1$/);
        expect(sent.filter((s) => s.text.startsWith('[react')).map((s) => s.text)).toEqual([
          expect.stringMatching(/^\[react p\d+\] 👍$/),
        ]);
      });

      it('update_task: the task is changed in place', { timeout: CASE_MS }, async () => {
        await seed('schedule_task', { prompt: `old ${row.kind}`, every: '2h' });
        const before = read((d) => tasksForChat(d, CHAT));
        expect(before).toHaveLength(1);
        const taskId = before[0]?.id as string;
        const prompt = `new ${row.kind} prompt`;
        const { last } = await warmCall('update_task', { id: taskId, prompt, every: '3h' }, 'Updated.');
        expect(last).toContain('Updated');
        expect(read((d) => tasksForChat(d, CHAT)).map((t) => [t.id, t.prompt, t.every])).toEqual([
          [taskId, prompt, '3h'],
        ]);
      });

      it(`the user's script (script__note): the script got the arguments, the model its answer`, {
        timeout: CASE_MS,
      }, async () => {
        const text = `okapi-${row.kind}-warm-${randomUUID().slice(0, 6)}`;
        const { last } = await warmCall('script__note', { text }, 'Noted it.');
        expect(last).toContain(`noted: ${text}`);
        expect(calls(notes)).toEqual([{ text }]);
      });
    });
  }
});
