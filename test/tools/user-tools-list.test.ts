// Listing the user's own tools when some servers are not well: a program that does not exist and
// a server that never answers are left out (the log says which), the others are listed, and the
// list comes back within its bound. Real child processes; the relay's UserTools directly.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createUserTools, type UserTools } from '../../src/tools/user-tools.js';
import { memoryLog } from '../queue/helpers.js';

const SERVER = join(process.cwd(), 'test/fixtures/fake-user-mcp.mjs');
let tools: UserTools | undefined;
afterEach(async () => {
  await tools?.close();
  tools = undefined;
});

describe("listing the user's own tools", () => {
  it('leaves out a server that does not start or does not answer, on time; lists the rest', async () => {
    const { log, lines } = memoryLog();
    const server = { safe: [], timeoutSeconds: 30 };
    tools = createUserTools({
      servers: {
        gone: { ...server, command: ['/nonexistent/aw-user-mcp'] },
        mute: { ...server, command: [process.execPath, '-e', 'setInterval(() => {}, 1000)'] },
        fake: { ...server, command: [process.execPath, SERVER] },
      },
      scripts: {},
      from: process.env,
      log,
      listWaitMs: 3000,
    });
    const started = Date.now();
    const names = (await tools.list()).map((t) => t.name);
    expect(Date.now() - started).toBeLessThan(8000);
    expect(names.sort()).toEqual([
      'fake__add',
      'fake__die',
      'fake__echo',
      'fake__env',
      'fake__flood',
      'fake__hang',
    ]);
    expect(lines.filter((l) => l.msg === 'user MCP server not listed').map((l) => l.server)).toEqual([
      'gone',
    ]);
    expect(lines.filter((l) => /slow to list/.test(String(l.msg))).map((l) => l.server)).toEqual(['mute']);
    // Stopping does not wait for the server that never answered to time out.
    const stopping = Date.now();
    await tools.close();
    expect(Date.now() - stopping).toBeLessThan(5000);
    // A call to the server that does not exist is a sentence, not a crash.
    expect(await tools.call('gone__x', {}, { policy: 'allow' })).toEqual({
      ok: false,
      error: 'gone__x: the server gone is not available: its program /nonexistent/aw-user-mcp was not found',
    });
  });
});
