// queue.whileBusy 'steer' over the real warm pool and fake CLIs: a message that arrives mid-turn is
// stored, then given to the running turn (codex, pi) and answered by that turn's reply, once; where
// the CLI cannot take it (ACP) it runs after, as a follow-up.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import { createWarmPool, type WarmPool } from '../../src/drivers/pool.js';
import { createLogger } from '../../src/log.js';
import { agentResolver } from '../../src/queue/adapters.js';
import { steerable } from '../../src/queue/steer.js';
import { tempDir } from '../helpers/tmp.js';
import { type Harness, harness } from './helpers.js';

const FIX = join(import.meta.dirname, '..', 'fixtures');
let h: Harness | undefined;
let pool: WarmPool | undefined;
let dir = '';
afterEach(async () => {
  await pool?.shutdown(5000);
  h?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

function setup(agent: Record<string, unknown>) {
  dir = mkdtempSync(join(tmpdir(), 'aw-steer-'));
  const raw = { queue: { whileBusy: 'steer' }, agent: { cwd: dir, ...agent } };
  const config = configSchema.parse(raw);
  const log = createLogger({ level: 'silent' });
  pool = createWarmPool({ maxProcesses: 2, idleMs: 60_000, log, cold: () => undefined });
  const paths = {
    home: dir,
    configFile: join(dir, 'c.json5'),
    workspace: dir,
    agentState: join(dir, 'st'),
  } as never;
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
  h = harness({ config: raw, resolver: agentResolver(config, paths, env, log, pool), warm: pool });
  return h;
}

const rows = (x: Harness) =>
  x.store.db.prepare(`SELECT status, note FROM inbox WHERE kind = 'message' ORDER BY id`).all() as {
    status: string;
  }[];
const busy = () => vi.waitFor(() => expect(pool?.list(Date.now())[0]?.busy).toBe(true), { timeout: 10_000 });

describe('queue.whileBusy steer', () => {
  it('codex: the message joins the running turn, which answers both once', async () => {
    const x = setup({
      kind: 'codex',
      command: [process.execPath, join(FIX, 'fake-codex-app-server.mjs')],
      env: { FAKE_CODEX_STATE: tempDir('aw-steer-state-') },
    });
    await x.send('slow');
    await busy();
    await x.send('also this');
    // Finished with the run: counted as its message, never left waiting for a run of its own.
    await vi.waitFor(async () => expect((await x.queue.status()).active[0]?.messages).toBe(2));
    await x.channel.untilSent(1);
    await x.queue.whenIdle();
    const texts = x.channel.texts();
    expect(texts).toHaveLength(1);
    expect(texts[0]).toMatch(/^steered: .*also this/);
    expect(rows(x).map((r) => r.status)).toEqual(['done', 'done']);
  });

  it('pi: steer, answered by the running turn', async () => {
    const x = setup({ kind: 'pi', command: [process.execPath, join(FIX, 'fake-pi-rpc.mjs')] });
    await x.send('wait-steer');
    await busy();
    await x.send('the steered text');
    await x.channel.untilSent(1);
    await x.queue.whenIdle();
    expect(x.channel.texts()).toEqual([expect.stringMatching(/^steered: .*the steered text/)]);
    expect(rows(x).map((r) => r.status)).toEqual(['done', 'done']);
  });

  it('ACP (no steer in v1): the message waits and runs as a follow-up after the turn', async () => {
    const x = setup({
      kind: 'acp',
      command: [process.execPath, join(FIX, 'fake-acp-agent.mjs')],
      timeoutSeconds: 1,
    });
    await x.send('hang');
    await busy();
    await x.send('next one');
    await x.channel.untilSent(2);
    await x.queue.whenIdle();
    const texts = x.channel.texts();
    expect(texts[1]).toMatch(/turn 2: .*next one/);
    expect(rows(x).map((r) => r.status)).toEqual(['failed', 'done']);
  });
});

describe('steerable', () => {
  const user = { kind: 'user' as const, reason: undefined };
  it.each([
    ['a message into a user run', { kind: 'message' as const }, user, true],
    ['no run', { kind: 'message' as const }, undefined, false],
    ['a heartbeat run', { kind: 'message' as const }, { kind: 'system' as const, reason: undefined }, false],
    [
      'a run being stopped',
      { kind: 'message' as const },
      { kind: 'user' as const, reason: 'stop' as const },
      false,
    ],
    ['a command row', { kind: 'command' as const }, user, false],
    [
      'an attachment still to download',
      { kind: 'message' as const, remoteMedia: [{ url: 'x' }] as never },
      user,
      false,
    ],
  ])('%s → %s', (_n, row, run, want) => {
    expect(steerable(row, run)).toBe(want);
  });
});
