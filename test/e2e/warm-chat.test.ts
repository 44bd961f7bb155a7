// Warm mode end to end through the built binary (`agentwire chat`, which runs the relay's queue and
// warm pool) with the fake codex app-server as the agent: turns share one process, /new closes it,
// and a chat killed with SIGKILL mid-turn takes its agent with it (the watchdog); after a restart
// the interrupted message is re-run once in a new process that resumes the stored session.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { alive, type Home, MAIN, makeHome, spawnNode, waitFor } from './helpers.js';

const CODEX = join(import.meta.dirname, '..', 'fixtures', 'fake-codex-app-server.mjs');
let home: Home | undefined;
let state = '';
afterEach(() => {
  for (const pid of agentsOf(state)) process.kill(pid, 'SIGKILL');
  home?.cleanup();
  rmSync(state, { recursive: true, force: true });
});
beforeAll(() => {
  expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
});

function warmHome(env: Record<string, string> = {}): Home {
  state = mkdtempSync(join(tmpdir(), 'aw-warm-codex-'));
  return makeHome({
    queue: { whileBusy: 'followup' },
    agent: {
      kind: 'codex',
      mode: 'warm',
      command: [process.execPath, CODEX],
      env: { FAKE_CODEX_STATE: state, FAKE_CODEX_LOG: join(state, 'codex.log'), ...env },
    },
  });
}

/** Live fake app-servers started for this test (found by their FAKE_CODEX_STATE). */
function agentsOf(dir: string): number[] {
  if (!dir) return [];
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const env = readFileSync(`/proc/${name}/environ`, 'utf8');
      if (env.includes(`FAKE_CODEX_STATE=${dir}\0`) && alive(Number(name))) out.push(Number(name));
    } catch {
      // gone, or not ours to read
    }
  }
  return out;
}

const count = (haystack: string, needle: string) => haystack.split(needle).length - 1;

describe.skipIf(process.platform !== 'linux')('warm agents through agentwire chat', () => {
  it('one process answers turn after turn; /new closes it and the next message opens a new session', async () => {
    home = warmHome();
    // Commands act when they arrive: /new is sent once the first two replies are out.
    const p = spawnNode([MAIN, 'chat'], home.env);
    p.child.stdin?.write('one\ntwo\n');
    expect(await waitFor(() => p.stdout().includes('turn 2: two (seen 2)'))).toBe(true);
    expect(p.stdout()).toContain('turn 1: one (seen 1)');
    const [agent] = agentsOf(state);
    p.child.stdin?.write('/status\n');
    expect(await waitFor(() => /Warm process: codex, up \d+ s, idle \d+ s, \d+ MB/.test(p.stdout()))).toBe(
      true,
    );
    p.child.stdin?.write('/new\n');
    expect(await waitFor(() => !alive(agent as number))).toBe(true);
    p.child.stdin?.end('three\n');
    expect((await p.exit).code).toBe(0);
    // A new process (turn 1) on a new thread (seen 1).
    expect(p.stdout()).toContain('turn 1: three (seen 1)');
    expect(agentsOf(state)).toEqual([]);
  });

  it('SIGKILL mid-turn: no agent outlives the chat; the restart re-runs the message once, resuming the session', async () => {
    // An agent that ignores TERM and end of input mid-turn: only the watchdog can end it.
    home = warmHome({ FAKE_CODEX_STUBBORN: '1' });
    const first = spawnNode([MAIN, 'chat'], home.env);
    first.child.stdin?.write('one\n');
    expect(await waitFor(() => first.stdout().includes('turn 1: one (seen 1)'))).toBe(true);
    first.child.stdin?.write('hangonce please\n');
    const mark = join(state, 'hung-once');
    expect(await waitFor(() => existsSync(mark))).toBe(true);
    const agent = Number(readFileSync(mark, 'utf8'));
    expect(alive(agent)).toBe(true);
    first.child.kill('SIGKILL');
    await first.exit;
    // The watchdog saw the relay's end of the pipe close and killed the agent's group.
    expect(await waitFor(() => !alive(agent) && agentsOf(state).length === 0, 45_000)).toBe(true);

    const second = spawnNode([MAIN, 'chat'], home.env);
    // Recovery re-runs the interrupted message in a new process (turn 1) that resumed the thread
    // (seen 2: the thread held "one").
    expect(await waitFor(() => second.stdout().includes('turn 1: hangonce please (seen 2)'))).toBe(true);
    second.child.stdin?.end();
    expect((await second.exit).code).toBe(0);
    const out = first.stdout() + second.stdout();
    expect(count(out, 'one (seen')).toBe(1);
    expect(count(out, 'hangonce please (seen')).toBe(1);
    const log = readFileSync(join(state, 'codex.log'), 'utf8');
    expect(log).toContain('"thread/resume"');
    expect(agentsOf(state)).toEqual([]);
  });

  it('an older CLI that refuses the warm flag runs cold (the first message too), logged once and shown by /status', async () => {
    state = mkdtempSync(join(tmpdir(), 'aw-warm-old-'));
    home = makeHome({
      queue: { whileBusy: 'followup' },
      agent: {
        kind: 'codex',
        mode: 'warm',
        command: [process.execPath, join(import.meta.dirname, '..', 'fixtures', 'old-cli.mjs')],
        env: {
          REPLAY_CAPTURE: join(import.meta.dirname, '..', '..', 'fixtures', 'agents', 'codex', 'new.json'),
        },
      },
    });
    const p = spawnNode([MAIN, 'chat'], home.env);
    p.child.stdin?.write('hello\n');
    expect(await waitFor(() => count(p.stdout(), '\n') >= 1 && !p.stdout().startsWith('Started'))).toBe(true);
    p.child.stdin?.write('again\n');
    expect(await waitFor(() => count(p.stdout(), '\n') >= 2)).toBe(true);
    p.child.stdin?.end('/status\n');
    expect((await p.exit).code).toBe(0);
    const out = p.stdout();
    // Both messages were answered, cold, by the replayed capture.
    expect(count(out, 'Here is your chart.')).toBe(2);
    expect(out).toContain('codex runs cold: its warm start failed');
    // The first answer says once why it ran cold, and nothing else failed.
    expect(count(out, 'Codex could not start as a live process: it exited as it started.')).toBe(1);
    expect(out.replace('Codex could not start', '')).not.toContain('could not');
    expect(count(p.stderr(), 'runs cold from now on')).toBe(1);
  });
});
