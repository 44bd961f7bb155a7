// edit_message through the real claude, cold (docs/tools.md): claude is given `agentwire mcp` from
// dist/ the way the relay gives it, the fake model server calls `edit_message` on a message the
// chat's outbox holds, and the edit is stored in the outbox (once, keyed by the run) with claude's
// model reading the tool's answer. The relay side is a real tool host over temp SQLite.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSpec } from '../../src/agents/registry.js';
import { newSession } from '../../src/agents/resolve.js';
import type { ChatKey } from '../../src/core/types.js';
import { runCommandReply } from '../../src/runner/run-command-reply.js';
import { storeOver } from '../../src/store/sqlite/open.js';
import { rowsForKey } from '../../src/store/sqlite/outbox.js';
import { requests, scenario, stateDir, turn } from './harness.js';
import { startToolHost, type ToolHostRig } from './tool-host-rig.js';

// A channel whose plug-in can edit: the tool decides from its capabilities, not a running channel.
const CHAT: ChatKey = 'telegram:42';
let rig: ToolHostRig;

beforeAll(async () => {
  rig = await startToolHost('edit-message');
});
afterAll(async () => {
  await rig?.close();
});

describe('claude (real CLI, cold) with edit_message', () => {
  it('the model edits a message this chat was sent: the edit is in the outbox, once', async () => {
    const queue = storeOver(rig.db).queue;
    const seeded = await queue.enqueueReply(
      CHAT,
      'seed:draft',
      [{ type: 'text', text: 'draft' }],
      Date.now(),
    );
    expect(seeded.ok).toBe(true);
    const id = `out:${await queue.outboxIdOf('seed:draft')}`;
    const spec = getSpec('claude');
    const sc = `claude-tool-edit-${Date.now()}`;
    const base = await scenario(sc, {
      mode: 'tool',
      tool: { name: 'mcp__agentwire__edit_message', input: { messageId: id, text: 'final' } },
      reply: 'Edited it.',
    });
    const t = turn('claude', stateDir('claude'), base, 'fix your last message', newSession(spec), 90_000);
    const runKey = `in:${sc}`;
    const r = await runCommandReply(spec, {
      ...t.request,
      stateDir: rig.agentState(),
      tools: rig.grant(CHAT, runKey, 90_000).server,
    });
    expect(r).toMatchObject({ type: 'ok', text: 'Edited it.' });
    const seen = await requests(sc);
    expect(seen.map((q) => q.answer)).toContain('tool mcp__agentwire__edit_message');
    expect(JSON.stringify(seen.at(-1)?.body)).toContain(`Edited ${id}`);
    expect(rowsForKey(rig.db, `tool:${runKey}:edit:1`).map((row) => [row.chat, row.item])).toEqual([
      [CHAT, { type: 'edit', ref: id, text: 'final' }],
    ]);
  });
});
