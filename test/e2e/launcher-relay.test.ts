// The built relay (`dist/`, as `agentwire relay`, and `agentwire chat`) with `agents.launcher: true`: a Twilio webhook's
// cold run starts from the launcher the relay forked at start, not from the relay; a relay killed
// with SIGKILL leaves nothing running; a launcher killed mid-run fails that run with one sentence to
// the user, is said once in the log, and the next message runs from a new launcher.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type FakeTwilio,
  fakeTwilioSection,
  startFakeTwilio,
} from '../channels/twilio/helpers/fake-twilio.js';
import { postWhenUp, smsParams, twilioPost } from '../channels/twilio/helpers/harness.js';
import { launchersOf, parentOf, processesWithEnv } from '../support/procs.js';
import {
  alive,
  freePort,
  type Home,
  MAIN,
  makeHome,
  type Proc,
  relayLogLines,
  spawnNode,
  waitFor,
} from './helpers.js';

// Loading the whole built relay on a machine shared with other jobs can take most of 20 s.
const SLOW = 45_000;

let home: Home | undefined;
let fake: FakeTwilio | undefined;
const procs: Proc[] = [];
// Every process this test saw (relay, launcher, CLI): whatever a failing test left is killed.
const seen = new Set<number>();

afterEach(async () => {
  for (const p of procs.splice(0))
    if (p.child.exitCode === null && p.child.signalCode === null) {
      p.child.kill('SIGKILL');
      await p.exit;
    }
  for (const pid of seen) if (alive(pid)) process.kill(pid, 'SIGKILL');
  seen.clear();
  await fake?.close();
  fake = undefined;
  home?.cleanup();
  home = undefined;
});
beforeAll(() => {
  expect(readFileSync(MAIN).length, 'build first: npm run build').toBeGreaterThan(0);
});

const CODEX = join(import.meta.dirname, '..', 'fixtures', 'fake-codex-app-server.mjs');

/** The live fake codex processes started with FAKE_CODEX_STATE=`dir`. */
const codexesOf = (dir: string) => processesWithEnv(`FAKE_CODEX_STATE=${dir}`);

async function startRelayProc(
  extra: Record<string, unknown> = {},
): Promise<{ relay: Proc; url: string; h: Home; f: FakeTwilio }> {
  const f = await startFakeTwilio();
  fake = f;
  const port = await freePort();
  const h = makeHome({
    twilio: fakeTwilioSection(f, port),
    console: { enabled: false },
    agents: { launcher: true },
    ...extra,
  });
  home = h;
  const relay = spawnNode([MAIN, 'relay'], { ...h.env, TWILIO_ACCOUNT_SID: '', TWILIO_AUTH_TOKEN: '' });
  procs.push(relay);
  if (relay.child.pid) seen.add(relay.child.pid);
  return { relay, url: `http://127.0.0.1:${port}/twilio/inbound`, h, f };
}

describe('the relay with agents.launcher: true', () => {
  it('runs the CLI from its launcher, and a SIGKILLed relay leaves no process', {
    timeout: 3 * SLOW,
  }, async () => {
    const { relay, url, h, f } = await startRelayProc();
    const relayPid = relay.child.pid as number;
    expect((await postWhenUp(url, smsParams({ Body: 'hello agent' }))).status).toBe(200);
    expect(await waitFor(() => f.created.length > 0, SLOW), relay.stderr()).toBe(true);
    expect(f.created.map((m) => m.body)).toEqual(['reply: hello agent']);
    const launchers = launchersOf(relayPid);
    expect(launchers).toHaveLength(1);
    const launcher = launchers[0] as number;
    seen.add(launcher);
    const first = h.events().find((e) => e.ev === 'start');
    expect(first?.parent).toBe(launcher);
    expect(first?.parent).not.toBe(relayPid);
    // The fake names the relay that ran it through the launcher (fixtures/relay-pid.mjs).
    expect(first?.ppid).toBe(relayPid);

    // A second run, still going when the relay is killed.
    const sid = `SM${'8'.repeat(32)}`;
    expect((await twilioPost(url, smsParams({ MessageSid: sid, Body: 'long one sleep:60000' }))).status).toBe(
      200,
    );
    expect(await waitFor(() => h.events().some((e) => e.ev === 'sleep'), SLOW)).toBe(true);
    const cli = h.events().find((e) => e.ev === 'sleep')?.pid as number;
    seen.add(cli);
    expect(h.events().find((e) => e.ev === 'start' && e.pid === cli)?.parent).toBe(launcher);
    expect(alive(cli)).toBe(true);
    relay.child.kill('SIGKILL');
    await relay.exit;
    expect(await waitFor(() => !alive(launcher) && !alive(cli), 10_000)).toBe(true);
  });

  it('a launcher killed mid-run: that run fails in one sentence, logged once, the next message runs', {
    timeout: 3 * SLOW,
  }, async () => {
    const { relay, url, h, f } = await startRelayProc();
    const relayPid = relay.child.pid as number;
    expect((await postWhenUp(url, smsParams({ Body: 'doomed sleep:60000' }))).status).toBe(200);
    expect(await waitFor(() => h.events().some((e) => e.ev === 'sleep'), SLOW), relay.stderr()).toBe(true);
    const cli = h.events().find((e) => e.ev === 'sleep')?.pid as number;
    seen.add(cli);
    const launcher = h.events().find((e) => e.ev === 'start')?.parent as number;
    seen.add(launcher);
    expect(launchersOf(relayPid)).toEqual([launcher]);
    process.kill(launcher, 'SIGKILL');

    expect(await waitFor(() => f.created.length > 0, SLOW), relay.stderr()).toBe(true);
    expect(f.created.map((m) => m.body)).toEqual([
      "Claude Code was cut off mid-run because agentwire's launcher process stopped; send the message again.",
    ]);
    // Its process group went with the launcher.
    expect(await waitFor(() => !alive(cli), 10_000)).toBe(true);

    expect(
      (await twilioPost(url, smsParams({ MessageSid: `SM${'9'.repeat(32)}`, Body: 'next one' }))).status,
    ).toBe(200);
    expect(await waitFor(() => f.created.length > 1, SLOW), relay.stderr()).toBe(true);
    expect(f.created[1]?.body).toBe('reply: next one');
    const next = h.events().find((e) => e.ev === 'start' && e.prompt === 'next one');
    const relaunched = launchersOf(relayPid);
    expect(relaunched).toHaveLength(1);
    seen.add(relaunched[0] as number);
    expect(next?.parent).toBe(relaunched[0]);
    expect(next?.parent).not.toBe(launcher);

    const died = relayLogLines(h.dir).filter((l) => String(l.msg).startsWith('the launcher died'));
    expect(died).toHaveLength(1);
    expect(died[0]?.level).toBe(40);
    relay.child.kill('SIGTERM');
    expect((await relay.exit).code).toBe(0);
    // Stopped with the relay.
    expect(await waitFor(() => !alive(relaunched[0] as number), 10_000)).toBe(true);
  });

  it('a warm process starts from the launcher too, and goes with the relay on SIGTERM', {
    timeout: 3 * SLOW,
  }, async () => {
    const state = mkdtempSync(join(tmpdir(), 'aw-launcher-warm-'));
    try {
      const { relay, url, f } = await startRelayProc({
        agent: {
          kind: 'codex',
          mode: 'warm',
          command: [process.execPath, CODEX],
          env: { FAKE_CODEX_STATE: state },
        },
      });
      const relayPid = relay.child.pid as number;
      expect((await postWhenUp(url, smsParams({ Body: 'hello warm' }))).status).toBe(200);
      expect(await waitFor(() => f.created.length > 0, SLOW), relay.stderr()).toBe(true);
      expect(f.created[0]?.body).toContain('hello warm');
      const [codex] = codexesOf(state);
      expect(codex).toBeDefined();
      seen.add(codex as number);
      const [launcher] = launchersOf(relayPid);
      seen.add(launcher as number);
      expect(parentOf(codex as number)).toBe(launcher);
      // The second turn runs on the same process, its pipes still crossing the launcher.
      const second = smsParams({ MessageSid: `SM${'7'.repeat(32)}`, Body: 'again warm' });
      expect((await twilioPost(url, second)).status).toBe(200);
      expect(await waitFor(() => f.created.length > 1, SLOW), relay.stderr()).toBe(true);
      expect(f.created[1]?.body).toContain('again warm');
      expect(codexesOf(state)).toEqual([codex]);
      relay.child.kill('SIGTERM');
      expect((await relay.exit).code).toBe(0);
      expect(await waitFor(() => !alive(codex as number) && !alive(launcher as number), 10_000)).toBe(true);
    } finally {
      rmSync(state, { recursive: true, force: true });
    }
  });

  it('agentwire chat runs its CLI from a launcher too, and stops it when it ends', {
    timeout: SLOW,
  }, async () => {
    const h = makeHome({ agents: { launcher: true } });
    home = h;
    const chat = spawnNode([MAIN, 'chat'], h.env, 'hello\n');
    procs.push(chat);
    expect((await chat.exit).code).toBe(0);
    expect(chat.stdout()).toBe('reply: hello\n');
    expect(chat.stderr()).toBe('');
    const start = h.events().find((e) => e.ev === 'start');
    const launcher = start?.parent as number;
    seen.add(launcher);
    expect(launcher).toBeGreaterThan(1);
    expect(launcher).not.toBe(chat.child.pid);
    expect(await waitFor(() => !alive(launcher), 10_000)).toBe(true);
  });
});
