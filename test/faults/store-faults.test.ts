// The store failing like a full disk (SQLITE_FULL on the write at one step of the path, for a while)
// through the real relay path, with the same four promises as the CLI faults: the user hears
// something true, nothing is lost, no process is left, the next message runs.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAIN, waitFor } from '../e2e/helpers.js';
import { leftovers, type Rig, startRig } from './rig.js';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

async function nextStillRuns(r: Rig) {
  await r.say('and now this');
  expect(r.heard.at(-1)).toBe('reply: and now this');
  expect(r.inbox().at(-1)).toEqual({ text: 'and now this', status: 'done', note: null });
  expect(await leftovers(r.pids())).toEqual([]);
}

/** Until the store has refused a few writes (so the relay is waiting on it, not done with it). */
async function refusedAFew(r: Rig) {
  const retried = await waitFor(() => r.disk.refused >= 3);
  expect(retried, `the relay retried the refused write (refused so far: ${r.disk.refused})`).toBe(true);
}

const allSent = (r: Rig) => expect(r.outbox().map((o) => o.status)).toEqual(r.outbox().map(() => 'sent'));

describe('the store fails like a full disk', () => {
  it('when a message arrives: the sender is told it was not stored, and nothing runs', async () => {
    rig = await startRig();
    rig.disk.fill(/INSERT INTO inbox/);
    await rig.say('hello');
    expect(rig.notices).toEqual(['(not stored: could not store the message)']);
    expect(rig.heard).toEqual([]);
    // Not lost: never acknowledged as stored (a WhatsApp or Twilio peer delivers it again).
    expect(rig.inbox()).toEqual([]);
    expect(rig.pids().cli).toEqual([]);
    rig.disk.free();
    await nextStillRuns(rig);
  });

  it('when a run starts: the chat waits for the store, then runs the message', async () => {
    rig = await startRig();
    const go = join(rig.home.dir, 'go');
    await rig.type(`first waitfile:${go}`);
    await rig.started(1);
    await rig.type('second');
    rig.disk.fill(/SET status = 'running'/);
    writeFileSync(go, '');
    await refusedAFew(rig);
    expect(rig.inbox().map((r) => r.status)).toEqual(['done', 'pending']);
    rig.disk.free();
    await rig.queue.whenIdle();
    expect(rig.heard).toEqual([`reply: first waitfile:${go}`, 'reply: second']);
    expect(rig.inbox().map((r) => r.status)).toEqual(['done', 'done']);
    allSent(rig);
    expect(await leftovers(rig.pids())).toEqual([]);
    await nextStillRuns(rig);
  });

  it("when a run's answer is recorded: the answer is kept and written once the disk has room", async () => {
    rig = await startRig();
    const go = join(rig.home.dir, 'go');
    await rig.type(`first waitfile:${go}`);
    await rig.started(1);
    rig.disk.fill(/INSERT INTO outbox/);
    writeFileSync(go, '');
    await refusedAFew(rig);
    expect(rig.inbox().map((r) => r.status)).toEqual(['running']);
    expect(rig.heard).toEqual([]);
    rig.disk.free();
    await rig.queue.whenIdle();
    expect(rig.heard).toEqual([`reply: first waitfile:${go}`]);
    expect(rig.inbox()).toEqual([{ text: `first waitfile:${go}`, status: 'done', note: null }]);
    allSent(rig);
    expect(await leftovers(rig.pids())).toEqual([]);
    await nextStillRuns(rig);
  });

  it('when a sent reply is noted: it is noted once the disk has room, and never sent twice', async () => {
    rig = await startRig();
    rig.disk.failNext(3, /SET status = 'sent'/);
    await rig.say('hello');
    expect(rig.disk.refused).toBe(3);
    expect(rig.heard).toEqual(['reply: hello']);
    expect(rig.inbox()).toEqual([{ text: 'hello', status: 'done', note: null }]);
    allSent(rig);
    expect(await leftovers(rig.pids())).toEqual([]);
    await nextStillRuns(rig);
    expect(rig.heard).toEqual(['reply: hello', 'reply: and now this']);
  });
});

// A state folder on a read-only mount: a private mount namespace (`unshare -rm`, no root needed
// where unprivileged user namespaces are allowed) bind-mounts a fresh home read-only, and the built
// relay starts in it. Skipped where unshare is missing or refused.
const canUnshare = spawnSync('unshare', ['-rm', 'true']).status === 0;
describe.skipIf(!canUnshare)('the state folder is read-only', () => {
  it.each([
    ['with its logs folder already there', true],
    ['before anything was made in it', false],
  ])('the relay ends with one sentence naming the folder and what to do (%s)', (_what, logs) => {
    const dir = mkdtempSync(join(tmpdir(), 'aw-ro-'));
    try {
      const home = join(dir, 'home');
      mkdirSync(home);
      if (logs) mkdirSync(join(home, 'logs'));
      writeFileSync(
        join(home, 'agentwire.json5'),
        '{ whatsapp: { enabled: false }, console: { enabled: false } }',
      );
      const script = 'mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" && exec "$2" "$3" relay';
      const r = spawnSync('unshare', ['-rm', 'sh', '-c', script, 'sh', home, process.execPath, MAIN], {
        env: { PATH: process.env.PATH, AGENTWIRE_HOME: home },
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(r.status).toBe(1);
      expect(r.stderr).toBe(
        `agentwire: The state folder ${home} is on a read-only file system (EROFS), so agentwire cannot keep its database and logs there: remount it read-write, or set AGENTWIRE_HOME to a writable folder.\n`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
