// A warm start that never answers is remembered in the store: the first run waits the start limit,
// falls back and answers cold; a restart runs the first message cold at once, without starting a
// warm process; `agentwire agent warm-reset` forgets it, and the next message tries warm again.
// Through the built binary (`agentwire chat` runs the relay's queue and warm pool over the store).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WARM_START_SECONDS } from '../../src/config/schema-warm.js';
import { alive, type Home, MAIN, makeHome, spawnNode } from './helpers.js';

const CLI = join(import.meta.dirname, '..', 'fixtures', 'silent-warm-cli.mjs');
const CAPTURE = join(import.meta.dirname, '..', '..', 'fixtures', 'agents', 'codex', 'new.json');
let home: Home | undefined;
let state = '';
const mark = () => join(state, 'warm-starts');
const warmStarts = (): number[] =>
  existsSync(mark()) ? readFileSync(mark(), 'utf8').split('\n').filter(Boolean).map(Number) : [];

afterEach(() => {
  for (const pid of warmStarts()) if (alive(pid)) process.kill(pid, 'SIGKILL');
  home?.cleanup();
  rmSync(state, { recursive: true, force: true });
});
beforeAll(() => {
  expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
});

const START_SECONDS = 2;
const count = (haystack: string, needle: string) => haystack.split(needle).length - 1;

/** One `agentwire chat` run: sends `lines`, ends its input, returns what it printed. */
async function chat(lines: string): Promise<{ out: string; ms: number }> {
  const t0 = performance.now();
  const p = spawnNode([MAIN, 'chat'], home?.env ?? {}, lines);
  const { code } = await p.exit;
  expect(code, p.stderr()).toBe(0);
  return { out: p.stdout(), ms: performance.now() - t0 };
}

describe.skipIf(process.platform !== 'linux')('a failed warm start across restarts', () => {
  it('is remembered: the restart runs cold at once, no warm start; warm-reset tries warm again', async () => {
    state = mkdtempSync(join(tmpdir(), 'aw-warm-mem-'));
    home = makeHome({
      queue: { whileBusy: 'followup' },
      // A test-sized start limit (the default is 20 s): the first run and the one after warm-reset
      // each wait it out.
      agents: { warm: { startSeconds: START_SECONDS } },
      agent: {
        kind: 'codex',
        mode: 'warm',
        command: [process.execPath, CLI],
        env: { REPLAY_CAPTURE: CAPTURE, SILENT_WARM_MARK: mark() },
      },
    });
    // First run: the warm start is tried, waits the limit, and the message is answered cold.
    const first = await chat('hello\n');
    expect(first.out).toContain('Here is your chart.');
    expect(first.out).toContain(
      'Codex could not start as a live process: it did not answer its start in time.',
    );
    expect(first.out).toContain('agentwire agent warm-reset');
    expect(warmStarts()).toHaveLength(1);
    // It waited the configured limit, not the default's 20 s.
    expect(first.ms).toBeLessThan(WARM_START_SECONDS * 1000);

    // Restart: cold at once, without a warm start, and /status says so.
    const second = await chat('again\n/status\n');
    expect(count(second.out, 'Here is your chart.')).toBe(1);
    expect(second.out).not.toContain('could not start as a live process');
    expect(second.out).toContain('codex runs cold: its warm start failed (timeout');
    // No warm start was tried, so none was waited for (a bound on its time would only measure the load).
    expect(warmStarts()).toHaveLength(1);

    // warm-reset (no relay running: in the store) forgets it ...
    const reset = spawnNode([MAIN, 'agent', 'warm-reset'], home.env);
    expect((await reset.exit).code, reset.stderr()).toBe(0);
    expect(reset.stdout()).toContain('Forgotten: codex.');

    // ... and the next message tries warm again (then falls back, still answered).
    const third = await chat('third\n');
    expect(warmStarts()).toHaveLength(2);
    expect(third.out).toContain('Here is your chart.');
  }, 120_000);
});
