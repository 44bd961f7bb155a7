// send_to_agent on the relay's side, over a real store: the request is an outside event stored
// before the tool answers (once per call, a redone run storing nothing new), addressed to the
// asking chat or the target's owner chat, carrying its hop; a target run's own call carries one
// more; a refusal or a store that fails stores nothing and gives the call's key back.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import type { ChatKey } from '../../src/core/types.js';
import { mediaPolicy } from '../../src/queue/adapters.js';
import { type Db, openDb } from '../../src/store/sqlite/db.js';
import { eventStore } from '../../src/store/sqlite/events.js';
import { storeOver } from '../../src/store/sqlite/open.js';
import { ALL_MIGRATIONS } from '../../src/store/sqlite/schema.js';
import { ToolError } from '../../src/tools/handlers.js';
import { createToolHost, type ToolHost } from '../../src/tools/host.js';
import { type FullDisk, fullDisk } from '../faults/full-disk.js';

const WORK: ChatKey = 'twilio:+15550001111';
const HOME: ChatKey = 'telegram:42';
let dir: string;
let db: Db;
let host: ToolHost;
let stored: number;

function setup(over: Db = db) {
  const config = configSchema.parse({
    whatsapp: { enabled: false },
    agents: {
      list: [
        { name: 'work', kind: 'claude', talksTo: [{ agent: 'home' }, { agent: 'ops', replyTo: 'owner' }] },
        { name: 'home', kind: 'codex', talksTo: [{ agent: 'work' }] },
        { name: 'ops', kind: 'codex', ownerChat: 'family' },
      ],
    },
    targets: { family: HOME },
    tools: { maxAgentHops: 2 },
  });
  const store = storeOver(over);
  host = createToolHost({
    enabled: true,
    limits: config.tools,
    store,
    mediaPolicy: mediaPolicy(config, join(dir, 'staged')),
    textRules: () => ({ limit: 1600 }),
    socket: join(dir, 'relay.sock'),
    entry: { command: process.execPath, args: ['/x/bin.js'] },
    timeZone: 'UTC',
    now: () => 1_000,
    agents: {
      list: config.agents.list,
      maxHops: config.tools.maxAgentHops,
      events: store.events,
      resolveChat: (ref) =>
        ref === 'family'
          ? { ok: true, chat: HOME }
          : { ok: false, error: `"${ref}" is not a name in targets` },
    },
  });
  host.onEventsStored(() => stored++);
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'aw-s2a-'));
  db = openDb(join(dir, 'db.sqlite'), ALL_MIGRATIONS);
  mkdirSync(join(dir, 'work'));
  stored = 0;
  setup();
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const mint = (runKey: string, agent: string, chat: ChatKey = WORK) =>
  host.tokens.mint({ chat, runKey, cwd: join(dir, 'work'), agent }, 60_000);
const send = (token: string, agent: string, text = 'dinner?') =>
  host.call({ token, tool: 'send_to_agent', args: { agent, text } });
const refusal = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ToolError);
  return (err as Error).message;
};
const open = () => eventStore(db).open();

describe('send_to_agent', () => {
  it('stores one event for the target in the asking chat, once per call even when the run is redone', async () => {
    expect((await send(mint('in:7', 'work'), 'home')).text).toContain('Sent to agent "home"');
    await send(mint('in:7', 'work'), 'home');
    const rows = await open();
    expect(rows.map((e) => [e.chat, e.source, JSON.parse(e.options)])).toEqual([
      [WORK, 'agent:work', { agent: 'home', hop: 1 }],
    ]);
    expect(rows[0]?.prompt).toContain('agent "work"');
    expect(rows[0]?.prompt.endsWith('dinner?')).toBe(true);
    expect(stored).toBe(2);
  });

  it("replyTo owner: the event is addressed to the target's ownerChat, through targets", async () => {
    await send(mint('in:8', 'work'), 'ops');
    expect((await open()).map((e) => e.chat)).toEqual([HOME]);
  });

  it("a target run's own call carries one hop more, and one past the bound is refused", async () => {
    await send(mint('in:9', 'work'), 'home');
    const [first] = await open();
    await send(mint(`event:${first?.id}`, 'home'), 'work', 'back to you');
    const second = (await open()).find((e) => e.source === 'agent:home');
    expect(JSON.parse(second?.options ?? '{}')).toEqual({ agent: 'work', hop: 2 });
    expect(await refusal(send(mint(`event:${second?.id}`, 'work'), 'home'))).toMatch(
      /^send_to_agent: not sent: .*tools\.maxAgentHops 2/,
    );
    expect(await open()).toHaveLength(2);
  });

  it('a pair not linked, and a kind, are refused and store nothing', async () => {
    expect(await refusal(send(mint('in:10', 'home'), 'ops'))).toBe(
      'send_to_agent: agent "home" may not send to "ops" (agents.list talksTo allows: work)',
    );
    expect(await refusal(send(mint('in:11', 'claude'), 'home'))).toMatch(/not a named agent/);
    expect(await open()).toEqual([]);
    expect(stored).toBe(0);
  });

  it('a store that refuses the write: the agent is told, and the call gives its key back', async () => {
    const disk: FullDisk = fullDisk(db as never);
    setup(disk.db);
    const token = mint('in:12', 'work');
    disk.fill(/INSERT INTO outside_events/);
    expect(await refusal(send(token, 'home'))).toMatch(/^send_to_agent: not sent: .*try again/);
    disk.free();
    await send(token, 'home');
    const rows = db.prepare('SELECT source_key FROM outside_events').all() as { source_key: string }[];
    expect(rows.map((r) => r.source_key)).toEqual(['tool:in:12:agent:1']);
  });
});
