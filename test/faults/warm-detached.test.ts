// A warm CLI's command that moved out of reach (`setsid`, ignoring TERM) must not outlive what it
// belongs to. The built relay runs the fake claude stream-json CLI warm; its command (detach.mjs)
// leaves a sleeper in a session of its own, a child of init, deaf to TERM. Each row ends it a
// different way and waits (bounded) for the sleeper to be gone:
//   /stop          the turn that started it is stopped; the warm process itself stays and answers next
//   time limit     the turn runs out of time
//   shutdown       a finished turn left it running; the relay is stopped with SIGTERM
//   relay SIGKILL  the same, and the relay is killed outright: its watchdog ends it
// Needs `npm run build`.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { alive, MAIN, waitFor } from '../e2e/helpers.js';
import { type RelayProc, sleeperPid, startRelayProc } from './relay-proc-rig.js';

const FAKE_STREAM = join(process.cwd(), 'test/fixtures/fake-claude-stream.mjs');
const CHAT = '+15550001234';

let rig: RelayProc | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});
beforeAll(() => {
  expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
});

async function start(timeoutSeconds = 60): Promise<RelayProc> {
  const r = await startRelayProc({
    agent: {
      kind: 'claude',
      mode: 'warm',
      command: [process.execPath, FAKE_STREAM],
      timeoutSeconds,
      env: { FAKE_CLAUDE_LOG: 'starts.jsonl' },
    },
  });
  rig = r;
  return r;
}

/** The warm CLI's pids (the fake logs each start in its working folder, <state>/workspace). */
function agents(r: RelayProc): number[] {
  const file = join(r.home.dir, 'workspace', 'starts.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { pid: number }).pid);
}

/** Starts a sleeper from a turn and registers it (and the CLI) for clean-up. */
async function sleeper(r: RelayProc, word: 'detach' | 'detachhang'): Promise<number> {
  const file = join(r.home.dir, `sleeper-${word}`);
  expect(await r.say(CHAT, `${word} ${file}`)).toMatchObject({ type: 'stored' });
  const pid = await sleeperPid(file);
  r.own(pid);
  for (const a of agents(r)) r.own(a);
  expect(alive(pid)).toBe(true);
  return pid;
}

const heard = (r: RelayProc, text: string) => waitFor(() => r.sent(CHAT).includes(text), 20_000);

describe.skipIf(process.platform !== 'linux')("a warm process's detached, TERM-ignoring grandchild", () => {
  it('is ended when its turn is stopped; the warm process stays and answers the next message', async () => {
    const r = await start();
    const pid = await sleeper(r, 'detachhang');
    const [cli] = agents(r);
    expect(await r.say(CHAT, '/stop')).toMatchObject({ type: 'command' });
    expect(await waitFor(() => !alive(pid), 10_000), 'the sleeper outlived /stop').toBe(true);
    await r.say(CHAT, 'still there?');
    expect(await heard(r, 'turn 2: still there?')).toBe(true);
    expect(agents(r)).toEqual([cli]);
    expect(alive(cli as number)).toBe(true);
  }, 60_000);

  it('is ended when its turn runs out of time', async () => {
    const r = await start(3);
    const pid = await sleeper(r, 'detachhang');
    expect(await heard(r, 'Claude Code took too long and was stopped.')).toBe(true);
    expect(await waitFor(() => !alive(pid), 10_000), 'the sleeper outlived the time limit').toBe(true);
  }, 60_000);

  it('left by a finished turn, is ended when the relay shuts down', async () => {
    const r = await start();
    const pid = await sleeper(r, 'detach');
    expect(await heard(r, 'detached')).toBe(true);
    // A turn that ended on its own keeps what it started while the process lives.
    expect(alive(pid)).toBe(true);
    r.proc.child.kill('SIGTERM');
    expect((await r.proc.exit).code).toBe(0);
    expect(await waitFor(() => !alive(pid), 10_000), 'the sleeper outlived the shutdown').toBe(true);
  }, 60_000);

  it('left by a finished turn, is ended when the relay is killed with SIGKILL', async () => {
    const r = await start();
    const pid = await sleeper(r, 'detach');
    expect(await heard(r, 'detached')).toBe(true);
    r.proc.child.kill('SIGKILL');
    await r.proc.exit;
    expect(await waitFor(() => !alive(pid), 10_000), 'the sleeper outlived the relay').toBe(true);
    for (const a of agents(r)) expect(await waitFor(() => !alive(a), 10_000)).toBe(true);
  }, 60_000);
});
