// A real relay process (the built composition root with a test channel) running codex warm (the
// fake app-server): `agentwire status` and `status --json` show the live process (chat masked, CLI,
// age, idle time, RSS), and a relay stopped with SIGTERM closes it (no agent outlives the relay).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { processesWithEnv } from '../support/procs.js';
import { alive, MAIN, spawnNode, waitFor } from './helpers.js';
import { deliverTo, useTestRelay } from './test-relay.js';

const CODEX = join(import.meta.dirname, '..', 'fixtures', 'fake-codex-app-server.mjs');
let state = '';
const relays = useTestRelay({
  afterStop: () => {
    for (const pid of agentsOf(state)) process.kill(pid, 'SIGKILL');
    if (state) rmSync(state, { recursive: true, force: true });
  },
});

function agentsOf(dir: string): number[] {
  return dir ? processesWithEnv(`FAKE_CODEX_STATE=${dir}`) : [];
}

describe.skipIf(process.platform !== 'linux')('warm relay', () => {
  it('status shows the live warm process; SIGTERM closes it with the relay', async () => {
    state = mkdtempSync(join(tmpdir(), 'aw-warm-relay-'));
    const home = relays.home({
      agent: {
        kind: 'codex',
        mode: 'warm',
        command: [process.execPath, CODEX],
        env: { FAKE_CODEX_STATE: state },
      },
    });
    const dir = home.dir;
    const sent = join(dir, 'sent.jsonl');
    const relay = relays.spawn(home);
    expect(await waitFor(() => relay.stdout().includes('ready'), 45_000), relay.stderr()).toBe(true);
    const chat = '+15550009876';
    expect(await deliverTo(home, 'hello', 'SMW1', chat)).toMatchObject({ type: 'stored' });
    expect(
      await waitFor(() => existsSync(sent) && readFileSync(sent, 'utf8').includes('turn 1: hello')),
    ).toBe(true);

    const json = spawnNode([MAIN, 'status', '--json'], home.env);
    await json.exit;
    const snap = JSON.parse(json.stdout()) as {
      warm?: { maxProcesses: number; processes: Record<string, unknown>[]; fallbacks: unknown[] };
    };
    expect(snap.warm?.maxProcesses).toBe(16);
    expect(snap.warm?.processes).toEqual([
      expect.objectContaining({
        agent: 'codex',
        busy: false,
        pid: agentsOf(state)[0],
        rssBytes: expect.any(Number),
      }),
    ]);
    const row = snap.warm?.processes[0] as {
      chat: string;
      rssBytes: number;
      ageSeconds: number;
      idleSeconds: number;
    };
    expect(row.chat).toMatch(/^twilio:/);
    expect(row.chat).not.toContain('5550009876');
    expect(row.rssBytes).toBeGreaterThan(1024 * 1024);
    expect(row.ageSeconds).toBeGreaterThanOrEqual(row.idleSeconds);
    expect(snap.warm?.fallbacks).toEqual([]);

    const text = spawnNode([MAIN, 'status'], home.env);
    await text.exit;
    expect(text.stdout()).toMatch(
      /Warm agents: 1 of 16 live, \d+ MB of \d+ MB \(\d+ MB a process\), 1 started\n\s+twilio:\S+\s+codex \(pid \d+\), up \S+, idle \S+, \d+ MB/,
    );

    relay.child.kill('SIGTERM');
    expect((await relay.exit).code).toBe(0);
    expect(agentsOf(state)).toEqual([]);
  });

  it('SIGKILL mid-turn: the agent dies with the relay; after a restart the message is answered once by a new process resuming the thread', async () => {
    state = mkdtempSync(join(tmpdir(), 'aw-warm-relay-'));
    const home = relays.home({
      queue: { whileBusy: 'followup' },
      agent: {
        kind: 'codex',
        mode: 'warm',
        command: [process.execPath, CODEX],
        // Ignores TERM and end of input mid-turn: only the relay's watchdog can end it.
        env: { FAKE_CODEX_STATE: state, FAKE_CODEX_STUBBORN: '1', FAKE_CODEX_LOG: join(state, 'codex.log') },
      },
    });
    const sent = join(home.dir, 'sent.jsonl');
    const start = async () => {
      const r = relays.spawn(home);
      expect(await waitFor(() => r.stdout().includes('ready'), 45_000), r.stderr()).toBe(true);
      return r;
    };
    const sentText = () => (existsSync(sent) ? readFileSync(sent, 'utf8') : '');
    const chat = '+15550004321';
    const first = await start();
    await deliverTo(home, 'one', 'SMK1', chat);
    expect(await waitFor(() => sentText().includes('turn 1: one (seen 1)'))).toBe(true);
    await deliverTo(home, 'hangonce now', 'SMK2', chat);
    expect(await waitFor(() => existsSync(join(state, 'hung-once')))).toBe(true);
    const agent = Number(readFileSync(join(state, 'hung-once'), 'utf8'));
    first.child.kill('SIGKILL');
    await first.exit;
    expect(await waitFor(() => !alive(agent) && agentsOf(state).length === 0, 45_000)).toBe(true);

    const second = await start();
    expect(await waitFor(() => sentText().includes('hangonce now (seen 2)'))).toBe(true);
    second.child.kill('SIGTERM');
    expect((await second.exit).code).toBe(0);
    const out = sentText();
    expect(out.split('one (seen').length - 1).toBe(1);
    expect(out.split('hangonce now (seen').length - 1).toBe(1);
    expect(out).toContain('turn 1: hangonce now (seen 2)');
    expect(readFileSync(join(state, 'codex.log'), 'utf8')).toContain('"thread/resume"');
    expect(agentsOf(state)).toEqual([]);
  });
});
