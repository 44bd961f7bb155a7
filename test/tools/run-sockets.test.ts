// A sandboxed run, and a sandboxed warm process, gets a tools socket of its own (0600, in the state
// folder) that takes only the token minted for it: another live run's token is refused there, its
// own works, and the file goes when the run ends or the process closes. Unsandboxed runs share the
// relay's tools socket. Real sockets, the relay's own wiring (createTools), a real store.
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TOOLS_SOCKET_ENV, TOOLS_TOKEN_ENV } from '../../src/agents/tool-server.js';
import { callControl } from '../../src/control/client.js';
import { createTools } from '../../src/relay.js';
import { openDb } from '../../src/store/sqlite/db.js';
import { sqliteFile, storeOver } from '../../src/store/sqlite/open.js';
import { QUEUE_MIGRATIONS } from '../../src/store/sqlite/queue-schema.js';
import { TOOLS_LIST_METHOD, TOOLS_METHOD } from '../../src/tools/schemas.js';
import { type Home, makeHome } from '../e2e/helpers.js';

let home: Home | undefined;
afterEach(() => {
  home?.cleanup();
  home = undefined;
});

const CHAT = 'twilio:+15550001111' as const;
const info = (socket: string, token: string) =>
  callControl(socket, TOOLS_METHOD, { token, tool: 'chat_info', args: {} }, { timeoutMs: 5000 });

/** Polls until `check` holds (a socket close is asynchronous), at most 5 s. */
async function until(check: () => boolean): Promise<boolean> {
  const end = Date.now() + 5000;
  while (!check() && Date.now() < end) await new Promise((r) => setImmediate(r));
  return check();
}

describe('tools sockets of sandboxed runs', () => {
  it("take only their own run's or process's token; files are private and go with the run", async () => {
    home = makeHome();
    const ctx = home.ctx();
    const db = openDb(sqliteFile(ctx.paths.home), QUEUE_MIGRATIONS);
    const shared = join(home.dir, 'tools.sock');
    try {
      const tools = createTools(ctx, storeOver(db), new Map(), shared, {
        command: process.execPath,
        args: ['/x/bin.js'],
      });
      const grant = (runKey: string, sandboxed: boolean) =>
        tools.grantor?.({
          chat: CHAT,
          sessionKey: CHAT,
          runKey,
          cwd: home?.dir ?? '',
          timeoutMs: 60_000,
          sandboxed,
        });
      const a = grant('in:1', true);
      const b = grant('in:2', true);
      const plain = grant('in:3', false);
      if (!a || !b || !plain) throw new Error('tools are on');
      const sockA = a.server.env[TOOLS_SOCKET_ENV] ?? '';
      const sockB = b.server.env[TOOLS_SOCKET_ENV] ?? '';
      const tokA = a.server.env[TOOLS_TOKEN_ENV] ?? '';
      const tokB = b.server.env[TOOLS_TOKEN_ENV] ?? '';
      // Each sandboxed run has its own socket in the state folder; an unsandboxed one the shared path.
      expect(plain.server.env[TOOLS_SOCKET_ENV]).toBe(shared);
      expect(sockA).not.toBe(sockB);
      expect(dirname(sockA)).toBe(join(home.dir, 'tool-sockets'));
      expect(statSync(sockA).mode & 0o777).toBe(0o600);
      expect(statSync(sockA).isSocket()).toBe(true);

      // Its own token works; another live run's token is refused on it.
      const own = await info(sockA, tokA);
      if (!own.ok) throw new Error(`its own token was refused: ${own.error}`);
      expect(JSON.parse((own.result as { text: string }).text)).toHaveProperty('chat');
      const other = await info(sockA, tokB);
      expect(other).toMatchObject({ ok: false, error: 'this tool token is not valid' });
      expect((await info(sockB, tokB)).ok).toBe(true);
      // tools.list (the user's own tools, none here) on the same terms: its own token only.
      const list = (sock: string, token: string) =>
        callControl(sock, TOOLS_LIST_METHOD, { token }, { timeoutMs: 5000 });
      expect(await list(sockA, tokA)).toMatchObject({ ok: true, result: { tools: [] } });
      expect(await list(sockA, tokB)).toMatchObject({ ok: false, error: 'this tool token is not valid' });
      // Only the tools' methods are served.
      expect((await callControl(sockA, 'status', {}, { timeoutMs: 5000 })).ok).toBe(false);

      // A warm process of a sandboxed run: a socket for the process's own token only.
      const proc = a.warm.open(CHAT);
      const sockP = proc.server.env[TOOLS_SOCKET_ENV] ?? '';
      expect(sockP).not.toBe(sockA);
      expect(await info(sockP, tokA)).toMatchObject({ ok: false, error: 'this tool token is not valid' });
      // Listing needs no turn: the CLI asks once at its start, before any turn binds the process.
      expect((await list(sockP, proc.server.env[TOOLS_TOKEN_ENV] ?? '')).ok).toBe(true);
      const bound = a.warm.bind(proc);
      expect(bound.type).toBe('bound');
      expect((await info(sockP, proc.server.env[TOOLS_TOKEN_ENV] ?? '')).ok).toBe(true);
      if (bound.type === 'bound') bound.unbind();

      // Gone when the run ends / the process closes.
      proc.close();
      a.release();
      expect(await until(() => !existsSync(sockA) && !existsSync(sockP))).toBe(true);
      expect(existsSync(sockB)).toBe(true);
      b.release();
      plain.release();
      expect(await until(() => !existsSync(sockB))).toBe(true);
    } finally {
      db.close();
    }
  });
});
