// A prompt-injected agent inside the bwrap sandbox (agent.sandbox: bwrap): a fake CLI, a real child
// of the one spawn helper, run in a real sandbox made by makeSandbox for a relay state folder laid
// out as the relay lays it (database, config, control and tools sockets, the workspace inside it,
// another chat's folder beside it). It tries to read the database, the config and the other folder
// with cat, `..`, a symlink, hard links and /proc, and to drive the owner's control socket with a
// forged hello; every attempt fails. The same CLI still writes its workspace and calls a tool
// through `agentwire mcp`, which reaches the relay over the one socket bound in. Skips, saying why,
// where bwrap cannot run.

import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeSandbox, toolInstalls, withToolsIn } from '../../src/agents/sandbox-plan.js';
import { TOOLS_SOCKET_ENV, TOOLS_TOKEN_ENV } from '../../src/agents/tool-server.js';
import { resolvePaths } from '../../src/config/paths.js';
import { MethodError, MethodRegistry } from '../../src/control/methods.js';
import { type ControlServer, startControlServer } from '../../src/control/server.js';
import type { Sandbox } from '../../src/core/sandbox.js';
import { createLogger } from '../../src/log.js';
import { spawnProcess } from '../../src/runner/spawn.js';
import { sqliteFile } from '../../src/store/sqlite/open.js';
import { TOOLS_METHOD } from '../../src/tools/schemas.js';
import { bwrapMissing } from '../helpers/bwrap.js';
import { tempDir } from '../helpers/tmp.js';

const ROOT = process.cwd();
const BIN = join(ROOT, 'dist/cli/bin.js');
const PROBE = join(import.meta.dirname, 'fixtures', 'sandbox-probe-cli.mjs');
const missing = bwrapMissing();
const log = createLogger({ level: 'silent' });

let servers: ControlServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

describe.skipIf(missing)(
  `a sandboxed agent against the relay's files${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    it('reads none of them, drives no control, and still writes its workspace and calls a tool', async () => {
      expect(existsSync(BIN), 'build first: npm run build').toBe(true);
      const dir = tempDir('aw-sandbox-');
      const paths = resolvePaths({ AGENTWIRE_HOME: join(dir, 'state') });
      mkdirSync(paths.workspace, { recursive: true, mode: 0o700 });
      writeFileSync(sqliteFile(paths.home), 'SECRET-DATABASE');
      writeFileSync(paths.configFile, '{ SECRET_CONFIG: 1 }');
      const other = join(paths.home, 'chats', 'other', 'notes.txt');
      mkdirSync(dirname(other), { recursive: true });
      writeFileSync(other, 'SECRET-OTHER-CHAT');

      const controlCalls: unknown[] = [];
      const control = new MethodRegistry();
      control.register('send', async (p) => {
        controlCalls.push(p);
        return { sent: true };
      });
      servers.push(await startControlServer(paths.socket, control, log, { callers: 'owner' }));
      const token = `tok-${randomUUID()}`;
      const toolCalls: unknown[] = [];
      const tools = new MethodRegistry();
      tools.register(TOOLS_METHOD, async (p) => {
        const call = p as { token?: string; tool?: string; args?: { text?: string } };
        if (call.token !== token) throw new MethodError('unknown token');
        toolCalls.push({ tool: call.tool, text: call.args?.text });
        return { text: 'Sent to the chat.' };
      });
      servers.push(await startControlServer(paths.toolsSocket, tools, log, { callers: 'any' }));

      const env = {
        PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
        HOME: join(dir, 'home'),
        LANG: 'C.UTF-8',
      };
      const server = {
        command: process.execPath,
        args: [BIN, 'mcp'],
        env: { [TOOLS_SOCKET_ENV]: paths.toolsSocket },
      };
      const made = makeSandbox('claude', {
        cwd: paths.workspace,
        env,
        stateDir: join(paths.agentState, 'claude'),
        command: [PROBE],
        hidden: [paths.home, paths.configFile, sqliteFile(paths.home), paths.socket],
      });
      if (!made.ok) throw new Error(made.error);
      const sandbox: Sandbox = {
        type: 'bwrap',
        plan: withToolsIn(made.plan, server, toolInstalls(server), []),
      };
      const r = await spawnProcess({
        file: PROBE,
        args: [],
        cwd: paths.workspace,
        env: {
          ...env,
          [TOOLS_TOKEN_ENV]: token,
          [TOOLS_SOCKET_ENV]: paths.toolsSocket,
          PROBE_DB: sqliteFile(paths.home),
          PROBE_CONFIG: paths.configFile,
          PROBE_OTHER: other,
          PROBE_HOME: paths.home,
          PROBE_CONTROL: paths.socket,
          PROBE_RELAY_PID: String(process.pid),
          PROBE_TOOL_COMMAND: server.command,
          PROBE_TOOL_ARGS: JSON.stringify(server.args),
        },
        sandbox,
        timeoutMs: 60_000,
      });
      expect(r.type, JSON.stringify(r)).toBe('exited');
      if (r.type !== 'exited') return;
      expect(r.exitCode, r.stderr).toBe(0);
      const got = JSON.parse(r.stdoutLines.at(-1) ?? '{}') as Record<string, string>;
      for (const attempt of [
        'cat_db',
        'cat_config',
        'cat_other_workspace',
        'dotdot_other_workspace',
        'symlink_db',
        'hardlink_db',
        'hardlink_config',
        'proc_relay_environ',
        'proc_root_db',
        'proc_1_root_db',
        'control_socket',
      ]) {
        expect(got[attempt], `${attempt}: ${got[attempt]}`).toMatch(/^denied: /);
      }
      // The state folder shows only what was bound into it: the workspace, the agent's state and the
      // tools socket; never the database, config, control socket or other chats.
      expect(got.state_listing).toBe('read: agents,tools.sock,workspace');
      expect(controlCalls).toEqual([]);
      expect(JSON.stringify(got)).not.toMatch(/SECRET/);

      expect(got.write_workspace).toBe('ok');
      expect(readFileSync(join(paths.workspace, 'note.txt'), 'utf8')).toBe('written inside the sandbox');
      expect(got.tool).toBe('Sent to the chat.');
      expect(toolCalls).toEqual([{ tool: 'send_message', text: 'from the sandbox' }]);
    });
  },
);
