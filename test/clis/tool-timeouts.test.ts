// A tool call that takes longer than a CLI's default MCP tool-call timeout (issue 17: ask_user
// waits for the person) still gets its answer to the model, because each CLI is told the run's own
// limit (docs/tools.md, "Timeouts"). Checked where the default is short enough to pass in a test:
// opencode and codex (60 s each, measured); claude's and gemini's defaults are longer than a test can wait.
// The relay side answers each call after a delay (a real tool host behind a slow control method).
// The wiring is the same function cold and warm (warm-tools.ts passes the spec's), so one cold run
// per CLI checks the setting takes; test/drivers/warm-tools.test.ts checks warm passes it.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSpec } from '../../src/agents/registry.js';
import { newSession } from '../../src/agents/resolve.js';
import type { AgentKind } from '../../src/agents/types.js';
import { configSchema } from '../../src/config/schema.js';
import { MethodRegistry } from '../../src/control/methods.js';
import { type ControlServer, startControlServer } from '../../src/control/server.js';
import type { ChatKey } from '../../src/core/types.js';
import { createLogger } from '../../src/log.js';
import { mediaPolicy } from '../../src/queue/adapters.js';
import { runCommandReply } from '../../src/runner/run-command-reply.js';
import { CORE_MIGRATIONS } from '../../src/store/core.js';
import { type Db, openDb } from '../../src/store/db.js';
import { storeOver } from '../../src/store/open.js';
import { createToolHost, type ToolHost } from '../../src/tools/host.js';
import { TOOLS_METHOD } from '../../src/tools/schemas.js';
import { requests, scenario, stateDir, turn } from './harness.js';

const MAIN = join(process.cwd(), 'dist/cli/bin.js');
const CHAT: ChatKey = 'twilio:+15550001111';
const ROOT = join(homedir(), '.cache', 'agentwire-test-tool-timeouts');

let dir: string;
let db: Db;
let host: ToolHost;
let server: ControlServer;
let delayMs = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'aw-clis-tool-timeouts-'));
  db = openDb(join(dir, 'db.sqlite'), CORE_MIGRATIONS);
  const config = configSchema.parse({ whatsapp: { enabled: false } });
  const socket = join(dir, 's.sock');
  host = createToolHost({
    enabled: true,
    limits: config.tools,
    store: storeOver(db),
    mediaPolicy: mediaPolicy(config, join(dir, 'staged')),
    textLimit: () => 1600,
    socket,
    entry: { command: process.execPath, args: [MAIN] },
    timeZone: 'UTC',
  });
  const control = new MethodRegistry();
  control.register(TOOLS_METHOD, async (params) => {
    await new Promise((r) => setTimeout(r, delayMs));
    return host.call(params);
  });
  server = await startControlServer(socket, control, createLogger({ level: 'silent' }));
});
afterAll(async () => {
  await server?.close();
  db?.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(ROOT, { recursive: true, force: true });
});

const CASES: { kind: AgentKind; tool: string; delayMs: number; model?: string }[] = [
  { kind: 'opencode', tool: 'agentwire_send_message', delayMs: 65_000 },
  { kind: 'codex', tool: 'mcp__agentwire__send_message', delayMs: 65_000, model: 'fake-model' },
];

describe.each(CASES)('$kind: a tool call slower than its default timeout', (c) => {
  it('gets its answer to the model', { timeout: 240_000 }, async () => {
    delayMs = c.delayMs;
    const sc = `${c.kind}-slow-tool-${Date.now()}`;
    const base = await scenario(sc, {
      mode: 'tool',
      tool: { name: c.tool, input: { text: 'slow but sure' } },
      reply: 'Done.',
    });
    const spec = getSpec(c.kind);
    const t = turn(c.kind, stateDir(c.kind), base, 'work on it', newSession(spec), 200_000);
    mkdirSync(ROOT, { recursive: true, mode: 0o700 });
    const g = host.grantor?.({ chat: CHAT, lane: CHAT, runKey: `in:${sc}`, cwd: dir, timeoutMs: 200_000 });
    if (!g) throw new Error('tools are off');
    const r = await runCommandReply(spec, {
      ...t.request,
      stateDir: mkdtempSync(join(ROOT, 'run-')),
      ...(c.model !== undefined && { model: c.model }),
      tools: g.server,
    });
    g.release();
    expect(r).toMatchObject({ type: 'ok', text: 'Done.' });
    // The tool's own answer reached the model, not the CLI's timeout error.
    const last = JSON.stringify((await requests(sc)).at(-1)?.body);
    expect(last).toContain('more this run');
  });
});
