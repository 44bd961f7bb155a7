// A real relay process: the built composition root with a test channel plugged into its channel
// factory list (test/e2e/fixtures/relay-test-channel.mjs), the fake claude as the agent, real
// SQLite, the real lock and control socket. The test SIGKILLs and SIGTERMs it for real.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { callControl } from '../../src/control/client.js';
import { probeLock } from '../../src/store/home-lock.js';
import { alive, type Home, killOrphanGroup, RELAY_SCRIPT, waitFor } from './helpers.js';
import { deliverTo, relayFiles, sentOf, useTestRelay } from './test-relay.js';

let home: Home;
const relays = useTestRelay();
const inboundSock = () => relayFiles(home).sock;
const sentFile = () => relayFiles(home).sent;
const startRelay = () => relays.start(home);

/** The one-letter state of a process from /proc (R, S, Z …), or '' once it is gone. */
function procState(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return '';
  }
}

const deliver = (text: string, messageId: string, chatId = '+15550001111') =>
  deliverTo(home, text, messageId, chatId);
const sentTexts = () => sentOf(home).map((s) => s.text);

const count = (list: string[], s: string) => list.filter((x) => x === s).length;

describe('a real relay process', () => {
  it('holds the lock: a second relay refuses; after a SIGKILL the stale lock is taken over', async () => {
    home = relays.home();
    const a = await startRelay();
    expect(await probeLock(join(home.dir, 'relay.lock'), home.dir)).toEqual({
      type: 'live',
      pid: a.child.pid,
    });
    const b = relays.spawn(home, 'b');
    expect((await b.exit).code).toBe(1);
    expect(b.stderr()).toContain(`Another relay (pid ${a.child.pid}) is already running`);
    a.child.kill('SIGKILL');
    await a.exit;
    const c = await startRelay();
    expect(await probeLock(join(home.dir, 'relay.lock'), home.dir)).toEqual({
      type: 'live',
      pid: c.child.pid,
    });
  });

  it('a relay SIGKILLed under a parent that never reaps it (a zombie) does not block the next start', async () => {
    home = relays.home();
    // `exec sleep` turns the shell into a parent that never calls wait(): the killed relay stays a
    // zombie, as under a container's first process that does not reap orphans.
    const parent = spawn(
      'sh',
      [
        '-c',
        `"$0" "$@" & echo "pid $!"; exec sleep 600`,
        process.execPath,
        RELAY_SCRIPT,
        inboundSock(),
        sentFile(),
      ],
      { env: home.env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    parent.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    try {
      expect(await waitFor(() => out.includes('ready'), 45_000), out).toBe(true);
      const zombie = Number(/pid (\d+)/.exec(out)?.[1]);
      process.kill(zombie, 'SIGKILL');
      expect(await waitFor(() => procState(zombie) === 'Z', 45_000)).toBe(true);
      // kill(pid, 0) still says the zombie exists: the reason a PID lock refused here.
      expect(() => process.kill(zombie, 0)).not.toThrow();
      const next = await startRelay();
      expect(await probeLock(join(home.dir, 'relay.lock'), home.dir)).toEqual({
        type: 'live',
        pid: next.child.pid,
      });
      expect(procState(zombie)).toBe('Z');
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('a lock file naming a live unrelated process (PID reuse) does not block the start', async () => {
    home = relays.home();
    const stranger = spawn('sleep', ['600'], { stdio: 'ignore' });
    try {
      writeFileSync(join(home.dir, 'relay.lock'), `${stranger.pid}\n`, { mode: 0o600 });
      const r = await startRelay();
      expect(await probeLock(join(home.dir, 'relay.lock'), home.dir)).toEqual({
        type: 'live',
        pid: r.child.pid,
      });
    } finally {
      stranger.kill('SIGKILL');
    }
  });

  it('answers status and send on its private control socket; send goes through the outbox once per key', async () => {
    home = relays.home();
    const a = await startRelay();
    const socket = join(home.dir, 'relay.sock');
    expect(statSync(socket).mode & 0o777).toBe(0o600);
    const status = await callControl(socket, 'status');
    expect(status).toMatchObject({
      ok: true,
      result: {
        pid: a.child.pid,
        channels: { twilio: { type: 'connected' } },
        queue: { active: [], maxConcurrentRuns: 4 },
      },
    });
    const params = { channel: 'twilio', to: '+15550002222', text: 'hello from send', key: 'k1' };
    // The relay waits for the first delivery outcome and says it; the same key again is the same
    // message, already sent, never a second one.
    const sent = { ok: true, result: { key: 'k1', outcome: { type: 'sent', parts: 1 } } };
    expect(await callControl(socket, 'send', params)).toEqual(sent);
    expect(await callControl(socket, 'send', params)).toEqual(sent);
    expect(await waitFor(() => sentTexts().includes('hello from send'))).toBe(true);
    expect(sentTexts().filter((t) => t === 'hello from send')).toHaveLength(1);
    expect(await callControl(socket, 'send', { ...params, channel: 'whatsapp' })).toEqual({
      ok: false,
      error: 'the whatsapp channel is not running in this relay',
      notRunning: false,
    });
    expect(await callControl(socket, 'send', { channel: 'twilio', to: 'x' })).toMatchObject({
      ok: false,
      error: expect.stringContaining('text or media is required'),
    });
    expect(await callControl(socket, 'nope')).toMatchObject({
      ok: false,
      error: expect.stringContaining('unknown method nope'),
    });
    a.child.kill('SIGTERM');
    expect((await a.exit).code).toBe(0);
    expect(count(sentTexts(), 'hello from send')).toBe(1);
    expect(await callControl(socket, 'status')).toEqual({
      ok: false,
      error: 'the relay is not running',
      notRunning: true,
    });
  });

  it('SIGKILL in the middle of a run, then a restart: every message is answered exactly once', async () => {
    home = relays.home({ queue: { whileBusy: 'followup' } });
    const a = await startRelay();
    expect(await deliver('m1', 'SM1')).toMatchObject({ type: 'stored' });
    expect(await waitFor(() => sentTexts().includes('reply: m1'))).toBe(true);
    await deliver('m2 sleeponce:60000', 'SM2');
    await deliver('m3', 'SM3');
    await deliver('y1', 'SMY1', '+15550009999');
    expect(await waitFor(() => home.events().some((e) => e.ev === 'sleep'))).toBe(true);
    a.child.kill('SIGKILL');
    await a.exit;
    const orphan = home.events().find((e) => e.ev === 'start' && e.prompt?.startsWith('m2'))?.pid as number;
    killOrphanGroup(orphan);

    const b = await startRelay();
    // Redelivery of an already stored message (a provider retry) is a duplicate, not a new run.
    expect(await deliver('m1', 'SM1')).toEqual({ type: 'duplicate' });
    expect(
      await waitFor(() =>
        ['reply: m2 sleeponce:60000', 'reply: m3', 'reply: y1'].every((t) => sentTexts().includes(t)),
      ),
    ).toBe(true);
    b.child.kill('SIGTERM');
    expect((await b.exit).code).toBe(0);
    const c = await startRelay();
    c.child.kill('SIGTERM');
    await c.exit;

    const sent = sentTexts();
    for (const t of ['reply: m1', 'reply: m2 sleeponce:60000', 'reply: m3', 'reply: y1'])
      expect(count(sent, t)).toBe(1);
    expect(sent).toHaveLength(4);
    // Runs may repeat after a crash (that is the recovery); replies may not. m1 had finished.
    const starts = home
      .events()
      .filter((e) => e.ev === 'start')
      .map((e) => e.prompt);
    expect(starts.filter((p) => p === 'm1')).toHaveLength(1);
    expect(starts.filter((p) => p?.startsWith('m2'))).toHaveLength(2);
  });

  it('SIGTERM: stops taking work, kills a run past the grace period, and the next start answers it', async () => {
    home = relays.home({ queue: { shutdownGraceSeconds: 1 } });
    const a = await startRelay();
    await deliver('slow sleeponce:60000 grandchild', 'SM1');
    expect(await waitFor(() => home.events().some((e) => e.ev === 'sleep'))).toBe(true);
    const cli = home.events().find((e) => e.ev === 'start')?.pid as number;
    const grandchild = home.events().find((e) => e.ev === 'grandchild')?.child as number;
    a.child.kill('SIGTERM');
    expect((await a.exit).code, a.stderr()).toBe(0);
    expect(a.stdout()).toContain('stopped');
    expect(alive(cli) || alive(grandchild)).toBe(false);
    expect(existsSync(join(home.dir, 'relay.lock'))).toBe(false);
    expect(sentTexts()).toEqual([]);
    const b = await startRelay();
    expect(await waitFor(() => sentTexts().length > 0)).toBe(true);
    expect(sentTexts()).toEqual(['reply: slow sleeponce:60000 grandchild']);
    b.child.kill('SIGTERM');
    await b.exit;
  });
});
