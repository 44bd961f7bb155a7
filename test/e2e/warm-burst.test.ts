// A burst through the built relay (its own process, the test channel) with the fake warm claude:
// 10 chats × 4 messages, 4 run slots, a pool of 4 processes. Every turn is held until all 40
// messages are stored (FAKE_CLAUDE_GATE), so the whole burst waits at once, as it does on a busy
// machine. Process starts = distinct chats (FAKE_CLAUDE_LOG has a line per start), not turns, and
// `agentwire status --json` counts the same starts.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { alive, MAIN, spawnNode, waitFor } from './helpers.js';
import { deliverTo, useTestRelay } from './test-relay.js';

const CLAUDE = join(import.meta.dirname, '..', 'fixtures', 'fake-claude-stream.mjs');
const CHATS = 10;
const PER_CHAT = 4;
let state = '';

const lines = (file: string) =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>)
    : [];

const relays = useTestRelay({
  afterStop: () => {
    for (const s of lines(join(state, 'starts.jsonl'))) {
      const pid = s.pid as number;
      if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
    if (state) rmSync(state, { recursive: true, force: true });
  },
});

describe.skipIf(process.platform !== 'linux')('warm burst through the relay', () => {
  it('10 chats × 4 messages over 4 slots and 4 processes: 40 answers, 10 process starts', async () => {
    state = mkdtempSync(join(tmpdir(), 'aw-warm-burst-'));
    const startLog = join(state, 'starts.jsonl');
    const gate = join(state, 'open');
    const home = relays.home({
      queue: { whileBusy: 'followup', maxConcurrentRuns: 4 },
      agents: { warm: { maxProcesses: 4 } },
      agent: {
        kind: 'claude',
        mode: 'warm',
        command: [process.execPath, CLAUDE],
        env: { FAKE_CLAUDE_LOG: startLog, FAKE_CLAUDE_GATE: gate },
      },
    });
    const sent = join(home.dir, 'sent.jsonl');
    const relay = relays.spawn(home);
    expect(await waitFor(() => relay.stdout().includes('ready'), 45_000), relay.stderr()).toBe(true);

    for (let m = 1; m <= PER_CHAT; m++)
      for (let c = 1; c <= CHATS; c++)
        expect(
          await deliverTo(home, `chat ${c} message ${m}`, `SM${c}x${m}`, `+1555000${1000 + c}`),
        ).toMatchObject({ type: 'stored' });
    // The first four chats' processes are up and their first turns held.
    expect(await waitFor(() => lines(startLog).length >= 4, 15_000)).toBe(true);
    writeFileSync(gate, '');
    expect(await waitFor(() => lines(sent).length >= CHATS * PER_CHAT, 60_000), relay.stderr()).toBe(true);

    const starts = lines(startLog);
    expect(starts).toHaveLength(CHATS);
    // One start per chat: every start opened a different session.
    expect(new Set(starts.map((s) => s.session)).size).toBe(CHATS);
    const texts = lines(sent).map((l) => (l.item as { text: string }).text);
    for (let c = 1; c <= CHATS; c++)
      for (let m = 1; m <= PER_CHAT; m++)
        expect(texts.filter((t) => t.includes(`chat ${c} message ${m}`))).toHaveLength(1);

    const json = spawnNode([MAIN, 'status', '--json'], home.env);
    await json.exit;
    const snap = JSON.parse(json.stdout()) as { warm?: { starts?: number; maxMemoryBytes?: number } };
    expect(snap.warm?.starts).toBe(CHATS);
    expect(snap.warm?.maxMemoryBytes).toBeGreaterThan(0);

    relay.child.kill('SIGTERM');
    expect((await relay.exit).code).toBe(0);
    expect(starts.filter((s) => alive(s.pid as number))).toEqual([]);
  });
});
