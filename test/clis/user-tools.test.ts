// A user's own MCP server (tools.servers) through the real claude, cold: claude is given
// `agentwire mcp` from dist/ the way the relay gives it (its spec's wiring, through runCommandReply,
// with the whole server allowed since user tools are configured), the fake model calls the user's
// tool by the name claude exposes it under, and the answer the user's server gave (through the
// relay's tool host on a real socket and store) comes back to the model.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSpec } from '../../src/agents/registry.js';
import { newSession } from '../../src/agents/resolve.js';
import { configSchema } from '../../src/config/schema.js';
import { MethodRegistry } from '../../src/control/methods.js';
import { type ControlServer, startControlServer } from '../../src/control/server.js';
import { createLogger } from '../../src/log.js';
import { mediaPolicy } from '../../src/queue/adapters.js';
import { registerToolsMethod } from '../../src/relay.js';
import { runCommandReply } from '../../src/runner/run-command-reply.js';
import { type Db, openDb } from '../../src/store/sqlite/db.js';
import { storeOver } from '../../src/store/sqlite/open.js';
import { QUEUE_MIGRATIONS } from '../../src/store/sqlite/queue-schema.js';
import { createToolHost, type ToolHost } from '../../src/tools/host.js';
import { createUserTools } from '../../src/tools/user-tools.js';
import { requests, scenario, stateDir, turn } from './harness.js';

const MAIN = join(process.cwd(), 'dist/cli/bin.js');
const SERVER = join(process.cwd(), 'test/fixtures/fake-user-mcp.mjs');
const SECRET = 'clis-user-secret-31c9d';

let dir: string;
let runs: string;
let db: Db;
let host: ToolHost;
let control: ControlServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'aw-clis-user-tools-'));
  runs = join(homedir(), '.cache', 'agentwire-test-user-tools');
  db = openDb(join(dir, 'db.sqlite'), QUEUE_MIGRATIONS);
  const config = configSchema.parse({ whatsapp: { enabled: false } });
  const socket = join(dir, 's.sock');
  host = createToolHost({
    enabled: true,
    limits: config.tools,
    store: storeOver(db),
    mediaPolicy: mediaPolicy(config, join(dir, 'staged')),
    textRules: () => ({ limit: 1600 }),
    socket,
    entry: { command: process.execPath, args: [MAIN] },
    timeZone: 'UTC',
    user: createUserTools({
      servers: {
        fake: {
          command: [process.execPath, SERVER],
          env: { FAKE_SECRET: SECRET },
          safe: ['echo'],
          timeoutSeconds: 20,
        },
      },
      scripts: {},
      from: process.env,
      log: createLogger({ level: 'silent' }),
    }),
  });
  const registry = new MethodRegistry();
  registerToolsMethod(registry, host);
  control = await startControlServer(socket, registry, createLogger({ level: 'silent' }));
});
afterAll(async () => {
  await control?.close();
  await host?.close();
  db?.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(runs, { recursive: true, force: true });
});

describe("claude (real CLI, cold) with the user's own MCP server", () => {
  it("the model calls fake__echo: the user's server answers, and the model reads it", async () => {
    const spec = getSpec('claude');
    const state = stateDir('claude');
    const sc = `claude-user-tool-${Date.now()}`;
    const name = 'mcp__agentwire__fake__echo';
    const base = await scenario(sc, {
      mode: 'tool',
      tool: { name, input: { text: 'zebra-42' } },
      reply: 'Done.',
    });
    const t = turn('claude', state, base, 'echo it', newSession(spec), 90_000);
    const g = host.grantor?.({
      chat: 'twilio:+15550001111',
      sessionKey: 'x',
      runKey: `in:${sc}`,
      cwd: dir,
      timeoutMs: 90_000,
    });
    if (!g) throw new Error('tools are on');
    mkdirSync(runs, { recursive: true, mode: 0o700 });
    try {
      const r = await runCommandReply(spec, {
        ...t.request,
        stateDir: mkdtempSync(join(runs, 'run-')),
        tools: g.server,
      });
      expect(r).toMatchObject({ type: 'ok', text: 'Done.' });
      const seen = await requests(sc);
      // Offered to the model beside ours, and called.
      const offered = JSON.stringify(seen[0]?.body);
      expect(offered).toContain(name);
      expect(offered).toContain('mcp__agentwire__send_message');
      expect(seen.map((q) => q.answer)).toContain(`tool ${name}`);
      // The user's server's answer reached the model; its secret did not reach anything of claude's.
      const last = JSON.stringify(seen.at(-1)?.body);
      expect(last).toMatch(/echo: zebra-42 \(call \d+ of pid \d+\)/);
      expect(JSON.stringify(seen)).not.toContain(SECRET);
      expect(Object.values(t.request.env ?? {}).some((v) => v.includes(SECRET))).toBe(false);
    } finally {
      g.release();
    }
  });
});
