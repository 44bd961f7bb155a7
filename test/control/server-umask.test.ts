// The control socket is private from the moment it exists: created under a private umask, not made
// private by the chmod after listen (here chmodSync does nothing, so only the umask can make it 0600).
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { MethodRegistry } from '../../src/control/methods.js';
import { type ControlServer, startControlServer } from '../../src/control/server.js';
import { memoryLog } from '../queue/helpers.js';

vi.mock('node:fs', async (importOriginal) => ({
  ...(await importOriginal<typeof import('node:fs')>()),
  chmodSync: () => {},
}));

let dir: string;
let server: ControlServer | undefined;
afterEach(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

it('creates the socket file with mode 0600 and restores the umask', async () => {
  dir = mkdtempSync(join(tmpdir(), 'aw-ctl-'));
  const path = join(dir, 'relay.sock');
  const before = process.umask();
  server = await startControlServer(path, new MethodRegistry(), memoryLog().log);
  expect(statSync(path).mode & 0o777).toBe(0o600);
  expect(process.umask()).toBe(before);
});
