// The user's own tools started from the relay's launcher (agents.launcher, on by default), as the
// agents are: a stdio server's and a script's parent is the launcher, not this process, and both
// work as without it. Real child processes; the relay's UserTools directly, a real launcher.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startLauncher } from '../../src/runner/launcher/client.js';
import { createUserTools } from '../../src/tools/user-tools.js';
import { memoryLog } from '../queue/helpers.js';
import { parentOf } from '../support/procs.js';

const SERVER = join(process.cwd(), 'test/fixtures/fake-user-mcp.mjs');
const launcher = startLauncher();
afterAll(() => launcher.stop());

describe.runIf(process.platform === 'linux')("the user's tools from the launcher", () => {
  it("a stdio server's and a script's parent is the launcher, and both answer", async () => {
    const { log } = memoryLog();
    const tools = createUserTools({
      servers: { fake: { command: [process.execPath, SERVER], safe: [], timeoutSeconds: 30 } },
      scripts: {
        parent: {
          run: [process.execPath, '-e', 'process.stdout.write(String(process.ppid))'],
          description: 'Says its parent.',
          schema: { type: 'object', properties: {} },
          timeoutSeconds: 30,
          safe: true,
        },
      },
      from: process.env,
      log,
      launcher,
    });
    try {
      const echoed = await tools.call('fake__echo', { text: 'hi' }, { policy: 'allow' });
      if (!echoed.ok) throw new Error(echoed.error);
      const server = Number(/of pid (\d+)/.exec(echoed.text)?.[1]);
      expect(server).toBeGreaterThan(1);
      expect(parentOf(server)).toBe(launcher.pid());
      const script = await tools.call('script__parent', {}, { policy: 'allow' });
      expect(script).toEqual({ ok: true, text: String(launcher.pid()) });
    } finally {
      await tools.close();
    }
  });
});
