// The Node compile cache a run's Node programs get: where it lives, when the relay's environment
// turns it off, that its folder is private, and that the relay hands it to the agent CLI and to
// `agentwire mcp` (the helper codex starts with only the variables its MCP entry names).
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveAgent } from '../../src/agents/resolve.js';
import { TOOLS_TOKEN_ENV } from '../../src/agents/tool-server.js';
import { resolvePaths } from '../../src/config/paths.js';
import { configSchema } from '../../src/config/schema.js';
import { createTools } from '../../src/relay.js';
import {
  COMPILE_CACHE_ENV,
  compileCacheDir,
  compileCacheEnv,
  makeCompileCacheDir,
} from '../../src/runner/compile-cache.js';
import { openDb } from '../../src/store/sqlite/db.js';
import { sqliteFile, storeOver } from '../../src/store/sqlite/open.js';
import { QUEUE_MIGRATIONS } from '../../src/store/sqlite/queue-schema.js';
import { type Home, makeHome } from '../e2e/helpers.js';
import { tempDir } from '../helpers/tmp.js';

describe('compileCacheEnv', () => {
  const dir = '/state/cache/node-compile';
  it.each([
    ['an ordinary environment', { PATH: '/bin' }, { NODE_COMPILE_CACHE: dir }],
    [
      "one that names its own cache (the relay's own; a run gets ours)",
      { NODE_COMPILE_CACHE: '/x' },
      { NODE_COMPILE_CACHE: dir },
    ],
    ['one that turns the cache off', { NODE_DISABLE_COMPILE_CACHE: '1' }, {}],
    [
      'an empty NODE_DISABLE_COMPILE_CACHE (not set)',
      { NODE_DISABLE_COMPILE_CACHE: '' },
      { NODE_COMPILE_CACHE: dir },
    ],
  ])('%s', (_name, from, want) => {
    expect(compileCacheEnv(dir, from)).toEqual(want);
  });

  it('lives in the state folder, not the shared temp folder', () => {
    expect(compileCacheDir('/home/me/.agentwire')).toBe('/home/me/.agentwire/cache/node-compile');
  });

  it('makes the folder private', () => {
    const d = join(tempDir('aw-cc-'), 'cache', 'node-compile');
    makeCompileCacheDir(d);
    expect(statSync(d).mode & 0o777).toBe(0o700);
  });
});

describe('a run of the agent CLI', () => {
  const home = tempDir('aw-cc-home-');
  const paths = resolvePaths({ AGENTWIRE_HOME: home });
  const cache = join(home, 'cache', 'node-compile');

  it('gets the cache in its environment, its folder created private', () => {
    const a = resolveAgent(configSchema.parse({ agent: { kind: 'gemini' } }), paths, undefined, {
      env: { PATH: '/bin' },
    });
    expect(a.env[COMPILE_CACHE_ENV]).toBe(cache);
    expect(statSync(cache).mode & 0o777).toBe(0o700);
  });

  it("takes the config's own NODE_COMPILE_CACHE over ours, and none where the relay's turns it off", () => {
    const own = resolveAgent(
      configSchema.parse({ agent: { kind: 'pi', env: { NODE_COMPILE_CACHE: '/mine' } } }),
      paths,
      undefined,
      { env: { PATH: '/bin' }, createDirs: false },
    );
    expect(own.env[COMPILE_CACHE_ENV]).toBe('/mine');
    const off = resolveAgent(configSchema.parse({}), paths, undefined, {
      env: { PATH: '/bin', NODE_DISABLE_COMPILE_CACHE: '1' },
      createDirs: false,
    });
    expect(off.env[COMPILE_CACHE_ENV]).toBeUndefined();
  });
});

describe("the relay's `agentwire mcp` entry", () => {
  let h: Home | undefined;
  afterEach(() => {
    h?.cleanup();
    h = undefined;
  });

  it('carries the cache beside the run token', () => {
    h = makeHome();
    const ctx = h.ctx();
    const db = openDb(sqliteFile(ctx.paths.home), QUEUE_MIGRATIONS);
    try {
      const tools = createTools(ctx, storeOver(db), new Map(), join(h.dir, 'relay.sock'), {
        command: process.execPath,
        args: ['/x/bin.js'],
      });
      const grant = tools.grantor?.({
        chat: 'twilio:+15550001111',
        sessionKey: 'twilio:+15550001111',
        runKey: 'in:1',
        cwd: h.dir,
        timeoutMs: 60_000,
      });
      expect(grant?.server.env[COMPILE_CACHE_ENV]).toBe(join(ctx.paths.home, 'cache', 'node-compile'));
      expect(grant?.server.env[TOOLS_TOKEN_ENV]).toMatch(/.{16,}/);
    } finally {
      db.close();
    }
  });
});
