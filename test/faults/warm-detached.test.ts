// A warm CLI's command that moved out of reach (`setsid`, ignoring TERM) must not outlive what it
// belongs to. The built relay runs the fake claude stream-json CLI warm; its command (detach.mjs)
// leaves a sleeper in a session of its own, a child of init, deaf to TERM. Each row ends it a
// different way and waits (bounded) for the sleeper to be gone:
//   /stop          the turn that started it is stopped; the warm process itself stays and answers
//                  next (for each kind of warm driver: claude, codex, pi, ACP, against their fakes)
//   time limit     the turn runs out of time
//   shutdown       a finished turn left it running; the relay is stopped with SIGTERM
//   relay SIGKILL  the same, and the relay is killed outright: its watchdog ends it
// Needs `npm run build`.
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { alive, MAIN, waitFor } from '../e2e/helpers.js';
import { type RelayProc, sleeperPid, startRelayProc } from './relay-proc-rig.js';

const FIX = join(process.cwd(), 'test/fixtures');
const CHAT = '+15550001234';

let rig: RelayProc | undefined;
/** The fake CLI the current row runs. */
let fakePath = '';
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});
beforeAll(() => {
  expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
});

async function start(
  kind = 'claude',
  fake = 'fake-claude-stream.mjs',
  timeoutSeconds = 60,
): Promise<RelayProc> {
  fakePath = join(FIX, fake);
  const r = await startRelayProc({
    agent: { kind, mode: 'warm', command: [process.execPath, fakePath], timeoutSeconds },
  });
  rig = r;
  return r;
}

/** The warm CLI's live processes: the fake's script, run in this relay's working folder. */
function agents(r: RelayProc): number[] {
  const workspace = join(r.home.dir, 'workspace');
  return readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .filter((n) => {
      try {
        const argv = readFileSync(`/proc/${n}/cmdline`, 'utf8').split('\0');
        return argv[1] === fakePath && readlinkSync(`/proc/${n}/cwd`) === workspace && alive(Number(n));
      } catch {
        return false;
      }
    })
    .map(Number);
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

// Every kind of warm driver, each against its fake CLI (the stopped-turn rule wraps them all).
const KINDS = [
  { kind: 'claude', fake: 'fake-claude-stream.mjs' },
  { kind: 'codex', fake: 'fake-codex-app-server.mjs' },
  { kind: 'pi', fake: 'fake-pi-rpc.mjs' },
  { kind: 'acp', fake: 'fake-acp-agent.mjs' },
];

describe.skipIf(process.platform !== 'linux')("a warm process's detached, TERM-ignoring grandchild", () => {
  it.each(KINDS)(
    '$kind: is ended when its turn is stopped; the warm process stays and answers the next message',
    async ({ kind, fake }) => {
      const r = await start(kind, fake);
      const pid = await sleeper(r, 'detachhang');
      const cli = agents(r);
      expect(cli).toHaveLength(1);
      expect(await r.say(CHAT, '/stop')).toMatchObject({ type: 'command' });
      expect(await waitFor(() => !alive(pid), 10_000), 'the sleeper outlived /stop').toBe(true);
      const before = r.sent(CHAT).length;
      await r.say(CHAT, 'still there?');
      expect(
        await waitFor(
          () =>
            r
              .sent(CHAT)
              .slice(before)
              .some((t) => t.includes('still there?')),
          20_000,
        ),
      ).toBe(true);
      expect(agents(r)).toEqual(cli);
    },
    60_000,
  );

  it('is ended when its turn runs out of time', async () => {
    const r = await start('claude', 'fake-claude-stream.mjs', 3);
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
    const [cli] = agents(r);
    r.proc.child.kill('SIGKILL');
    await r.proc.exit;
    expect(await waitFor(() => !alive(pid), 10_000), 'the sleeper outlived the relay').toBe(true);
    // The CLI itself goes too (its group, as before).
    expect(await waitFor(() => !alive(cli as number), 10_000)).toBe(true);
  }, 60_000);
});
