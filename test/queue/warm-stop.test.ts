// /stop and the time limit through the queue, with a warm codex (the fake app-server): the turn is
// cancelled, the process and its session are kept, and the chat's next message runs in it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import { createWarmPool, type WarmPool } from '../../src/drivers/pool.js';
import { createLogger } from '../../src/log.js';
import { agentResolver } from '../../src/queue/adapters.js';
import { type Harness, harness } from './helpers.js';

const CODEX = join(import.meta.dirname, '..', 'fixtures', 'fake-codex-app-server.mjs');
let h: Harness | undefined;
let pool: WarmPool | undefined;
let dir = '';
afterEach(async () => {
  await pool?.shutdown(5000);
  h?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

function setup(timeoutSeconds = 60) {
  dir = mkdtempSync(join(tmpdir(), 'aw-warm-stop-'));
  const raw = {
    queue: { whileBusy: 'followup' },
    agent: {
      kind: 'codex',
      cwd: dir,
      timeoutSeconds,
      command: [process.execPath, CODEX],
      env: { FAKE_CODEX_STATE: dir },
    },
  };
  const log = createLogger({ level: 'silent' });
  pool = createWarmPool({ maxProcesses: 2, idleMs: 60_000, log, cold: () => undefined });
  const paths = {
    home: dir,
    configFile: join(dir, 'c.json5'),
    workspace: dir,
    agentState: join(dir, 'st'),
  } as never;
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
  h = harness({
    config: raw,
    resolver: agentResolver(configSchema.parse(raw), paths, env, log, pool),
    warm: pool,
  });
  return h;
}
const busy = () => vi.waitFor(() => expect(pool?.list(Date.now())[0]?.busy).toBe(true), { timeout: 10_000 });
const pid = () => pool?.list(Date.now())[0]?.pid;

describe('warm /stop and time limit through the queue', () => {
  it('/stop cancels the turn; the next message runs in the same process and session', async () => {
    const x = setup();
    await x.send('hello');
    await x.channel.untilSent(1);
    const before = pid();
    await x.send('hang');
    await busy();
    await x.send('/stop');
    await x.queue.whenIdle();
    await x.send('after');
    await x.channel.untilSent(3);
    await x.queue.whenIdle();
    const texts = x.channel.texts();
    expect(texts).toContain('Stopped the agent.');
    // turn 3 of the same process; seen 2: the thread holds "hello" (the stopped turn ended interrupted).
    expect(texts.at(-1)).toBe('turn 3: after (seen 2)');
    expect(pid()).toBe(before);
  });

  it('the time limit cancels the turn; the chat is told and the process is kept', async () => {
    const x = setup(1);
    await x.send('hang');
    await x.channel.untilSent(1);
    const before = pid();
    expect(x.channel.texts()[0]).toMatch(/too long/i);
    await x.send('next');
    await x.channel.untilSent(2);
    expect(x.channel.texts()[1]).toBe('turn 2: next (seen 1)');
    expect(pid()).toBe(before);
  });
});
