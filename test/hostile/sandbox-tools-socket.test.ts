// A sandboxed agent that learned another live run's tool token cannot use it: its sandbox holds only
// its own run's tools socket (the relay's wiring, createTools), which refuses any token but its
// own; the relay's shared tools socket and the other run's socket are not in the sandbox at all.
// A real fake CLI in a real bwrap sandbox, real sockets, a real store. Skips where bwrap cannot run.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeSandbox, toolInstalls, withToolsIn } from '../../src/agents/sandbox-plan.js';
import { TOOLS_SOCKET_ENV, TOOLS_TOKEN_ENV } from '../../src/agents/tool-server.js';
import { MethodRegistry } from '../../src/control/methods.js';
import { type ControlServer, startControlServer } from '../../src/control/server.js';
import { createTools, registerToolsMethod } from '../../src/relay.js';
import { spawnProcess } from '../../src/runner/spawn.js';
import { openDb } from '../../src/store/sqlite/db.js';
import { sqliteFile, storeOver } from '../../src/store/sqlite/open.js';
import { QUEUE_MIGRATIONS } from '../../src/store/sqlite/queue-schema.js';
import { type Home, makeHome } from '../e2e/helpers.js';
import { bwrapMissing } from '../helpers/bwrap.js';

const BIN = join(process.cwd(), 'dist/cli/bin.js');
const PROBE = join(import.meta.dirname, 'fixtures', 'tools-socket-probe-cli.mjs');
const missing = bwrapMissing();
const CHAT = 'twilio:+15550001111' as const;

let home: Home | undefined;
let servers: ControlServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
  home?.cleanup();
  home = undefined;
});

describe.skipIf(missing)(`a sandboxed run's tools socket${missing ? ` (skipped: ${missing})` : ''}`, () => {
  it("refuses another run's token; the shared and other sockets are absent inside", async () => {
    expect(existsSync(BIN), 'build first: npm run build').toBe(true);
    home = makeHome();
    const ctx = home.ctx();
    const { paths } = ctx;
    mkdirSync(paths.workspace, { recursive: true, mode: 0o700 });
    const db = openDb(sqliteFile(paths.home), QUEUE_MIGRATIONS);
    try {
      const tools = createTools(ctx, storeOver(db), new Map(), paths.toolsSocket, {
        command: process.execPath,
        args: [BIN],
      });
      // The shared socket is live, as in a relay: only the sandbox keeps the run from it.
      const shared = new MethodRegistry();
      registerToolsMethod(shared, tools);
      servers.push(await startControlServer(paths.toolsSocket, shared, ctx.log, { callers: 'any' }));
      const grant = (runKey: string) =>
        tools.grantor?.({
          chat: CHAT,
          sessionKey: CHAT,
          runKey,
          cwd: paths.workspace,
          timeoutMs: 60_000,
          sandboxed: true,
        });
      const a = grant('in:1');
      const b = grant('in:2');
      if (!a || !b) throw new Error('tools are on');
      const env = { PATH: `/usr/bin:/bin`, HOME: join(home.dir, 'home'), LANG: 'C.UTF-8' };
      const made = makeSandbox('claude', {
        cwd: paths.workspace,
        env,
        stateDir: join(paths.agentState, 'claude'),
        command: [process.execPath, PROBE],
        hidden: [paths.home, paths.configFile, sqliteFile(paths.home), paths.socket],
      });
      if (!made.ok) throw new Error(made.error);
      const plan = withToolsIn(made.plan, a.server, toolInstalls(a.server), []);
      const r = await spawnProcess({
        file: process.execPath,
        args: [PROBE],
        cwd: paths.workspace,
        env: {
          ...env,
          ...a.server.env,
          PROBE_OTHER_TOKEN: b.server.env[TOOLS_TOKEN_ENV] ?? '',
          PROBE_OTHER_SOCKET: b.server.env[TOOLS_SOCKET_ENV] ?? '',
          PROBE_SHARED_SOCKET: paths.toolsSocket,
        },
        sandbox: { type: 'bwrap', plan },
        timeoutMs: 60_000,
      });
      a.release();
      b.release();
      expect(r.type, JSON.stringify(r)).toBe('exited');
      if (r.type !== 'exited') return;
      expect(r.exitCode, r.stderr).toBe(0);
      const got = JSON.parse(r.stdoutLines.at(-1) ?? '{}') as Record<string, string>;
      expect(got).toEqual({
        own: 'ok',
        other_token: 'refused: this tool token is not valid',
        shared_socket: 'denied: ENOENT',
        other_socket: 'denied: ENOENT',
      });
    } finally {
      db.close();
    }
  });
});
