// The relay's side of agentwire's tools for the real-CLI checks that run one CLI directly
// (runCommandReply) rather than through the relay: a real tool host on a real control socket over a
// temp SQLite store, the grants the relay would hand a run, and a state folder per run under the home
// folder (gemini skips a settings file with a world-writable folder above it, such as /tmp, as a real
// state folder, ~/.agentwire, has not).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolServer } from '../../src/agents/types.js';
import { configSchema } from '../../src/config/schema.js';
import { MethodRegistry } from '../../src/control/methods.js';
import { startControlServer } from '../../src/control/server.js';
import type { ChatKey } from '../../src/core/types.js';
import { createLogger } from '../../src/log.js';
import { mediaPolicy } from '../../src/queue/adapters.js';
import { registerToolsMethod } from '../../src/relay.js';
import { type Db, openDb } from '../../src/store/sqlite/db.js';
import { storeOver } from '../../src/store/sqlite/open.js';
import { QUEUE_MIGRATIONS } from '../../src/store/sqlite/queue-schema.js';
import { createToolHost, type ToolHost } from '../../src/tools/host.js';
import { TOOLS_METHOD } from '../../src/tools/schemas.js';
import type { UserTools } from '../../src/tools/user-tools.js';

const MAIN = join(process.cwd(), 'dist/cli/bin.js');
// pi loads the file a built relay names to it (relay-tools.ts agentwireEntry): the bundle.
const TOOL_EXTENSION_BUNDLE = join(process.cwd(), 'dist/tool-extension-bundle.js');

export interface ToolHostRig {
  dir: string;
  db: Db;
  host: ToolHost;
  /** A run's grant in `chat`, as the relay's grantor gives it; `release` it when the run ended. */
  grant(chat: ChatKey, runKey: string, timeoutMs: number): { server: ToolServer; release(): void };
  /** A fresh state folder for one run's agent (its tool files go there). */
  agentState(): string;
  close(): Promise<void>;
}

/**
 * `name` names the temp folders. `delayMs`, when given, is read at each call: the relay answers
 * that much later (a slow tool, as `ask_user` is); without it, the relay's own `tools.call` method.
 * `user`: the user's own tools (tools.servers, tools.scripts) offered beside ours.
 */
export async function startToolHost(
  name: string,
  delayMs?: () => number,
  user?: UserTools,
): Promise<ToolHostRig> {
  const dir = mkdtempSync(join(tmpdir(), `aw-clis-${name}-`));
  const runs = join(homedir(), '.cache', `agentwire-test-${name}`);
  const db = openDb(join(dir, 'db.sqlite'), QUEUE_MIGRATIONS);
  const config = configSchema.parse({ whatsapp: { enabled: false } });
  const socket = join(dir, 's.sock');
  const host = createToolHost({
    enabled: true,
    limits: config.tools,
    store: storeOver(db),
    mediaPolicy: mediaPolicy(config, join(dir, 'staged')),
    textRules: () => ({ limit: 1600 }),
    socket,
    entry: { command: process.execPath, args: [MAIN], toolExtension: TOOL_EXTENSION_BUNDLE },
    timeZone: 'UTC',
    ...(user && { user }),
  });
  const control = new MethodRegistry();
  if (delayMs)
    control.register(TOOLS_METHOD, async (params) => {
      await new Promise((r) => setTimeout(r, delayMs()));
      return host.call(params);
    });
  else registerToolsMethod(control, host);
  const server = await startControlServer(socket, control, createLogger({ level: 'silent' }));
  return {
    dir,
    db,
    host,
    grant(chat, runKey, timeoutMs) {
      const g = host.grantor?.({ chat, sessionKey: chat, runKey, cwd: dir, timeoutMs });
      if (!g) throw new Error('tools are off');
      return g;
    },
    agentState() {
      mkdirSync(runs, { recursive: true, mode: 0o700 });
      return mkdtempSync(join(runs, 'run-'));
    },
    async close() {
      await server.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
      rmSync(runs, { recursive: true, force: true });
    },
  };
}
