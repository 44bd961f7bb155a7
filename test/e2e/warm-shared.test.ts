// A real relay process (the built composition root with a test channel) running codex warm (the
// fake app-server) with `agents.warm.sessionsPerProcess: 2`: five chats write at once and are
// served by three codex processes (ceil(5 / 2)), each chat answered in its own thread, and
// `agentwire status` counts processes, not chats.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { alive, MAIN, spawnNode, waitFor } from './helpers.js';
import { deliverTo, useTestRelay } from './test-relay.js';

const CODEX = join(import.meta.dirname, '..', 'fixtures', 'fake-codex-app-server.mjs');
let state = '';
const relays = useTestRelay({
  afterStop: () => {
    for (const pid of started(state)) if (alive(pid)) process.kill(pid, 'SIGKILL');
    if (state) rmSync(state, { recursive: true, force: true });
  },
});

/** Every codex process the relay started (the fake writes its pid as it starts). */
function started(dir: string): number[] {
  const f = join(dir, 'starts');
  return dir && existsSync(f) ? readFileSync(f, 'utf8').split('\n').filter(Boolean).map(Number) : [];
}

describe.skipIf(process.platform !== 'linux')('warm relay sharing codex processes', () => {
  it('five chats, two a process: three codex processes, each chat in its own thread', async () => {
    state = mkdtempSync(join(tmpdir(), 'aw-warm-shared-'));
    const home = relays.home({
      agent: {
        kind: 'codex',
        mode: 'warm',
        command: [process.execPath, CODEX],
        env: { FAKE_CODEX_STATE: state, FAKE_CODEX_STARTS: join(state, 'starts') },
      },
      // With agentwire's tools on (the default): codex takes them per thread, each chat its token.
      agents: { warm: { sessionsPerProcess: 2, maxProcesses: 4 } },
    });
    const sent = join(home.dir, 'sent.jsonl');
    const relay = relays.spawn(home);
    expect(await waitFor(() => relay.stdout().includes('ready'), 45_000), relay.stderr()).toBe(true);
    const chats = [1, 2, 3, 4, 5].map((i) => `+1555000100${i}`);
    const outcomes = await Promise.all(chats.map((c, i) => deliverTo(home, `word${i} first`, `SMS${i}`, c)));
    for (const o of outcomes) expect(o).toMatchObject({ type: 'stored' });
    const replies = () => (existsSync(sent) ? readFileSync(sent, 'utf8') : '');
    expect(
      await waitFor(() => chats.every((_, i) => replies().includes(`word${i} first`)), 30_000),
      replies(),
    ).toBe(true);
    // A second message in each chat: its thread holds its own words and nobody else's.
    await Promise.all(chats.map((c, i) => deliverTo(home, 'recall', `SMR${i}`, c)));
    const recalls = () => replies().match(/recall: [^"]*/g) ?? [];
    expect(await waitFor(() => recalls().length === 5, 30_000), replies()).toBe(true);
    expect(recalls().sort()).toEqual(chats.map((_, i) => `recall: word${i} first`).sort());

    expect(started(state)).toHaveLength(3);
    const json = spawnNode([MAIN, 'status', '--json'], home.env);
    await json.exit;
    const snap = JSON.parse(json.stdout()) as { warm?: { processes: { pid?: number }[] } };
    expect(snap.warm?.processes).toHaveLength(5);
    expect(new Set(snap.warm?.processes.map((p) => p.pid)).size).toBe(3);
    const text = spawnNode([MAIN, 'status'], home.env);
    await text.exit;
    expect(text.stdout()).toContain('Warm agents: 3 of 4 live, serving 5 chats');

    relay.child.kill('SIGTERM');
    expect((await relay.exit).code).toBe(0);
    expect(started(state).filter(alive)).toEqual([]);
  });
});
