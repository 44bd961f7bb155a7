// The composition root with the real Twilio channel: a signed webhook on 127.0.0.1 reaches the
// queue, the fake claude answers as a real child process, and the reply leaves through Twilio's
// REST API (a fake of it on 127.0.0.1: the far edge).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TwilioChannel } from '../../src/channels/twilio/index.js';
import { type RunningRelay, startRelay } from '../../src/relay.js';
import {
  type FakeTwilio,
  fakeTwilioSection,
  startFakeTwilio,
} from '../channels/twilio/helpers/fake-twilio.js';
import { postWhenUp, smsParams, twilioPost } from '../channels/twilio/helpers/harness.js';
import {
  exitWithin,
  freePort,
  type Home,
  logTail,
  MAIN,
  makeHome,
  type Proc,
  spawnNode,
  waitFor,
} from './helpers.js';

let home: Home;
let relay: RunningRelay | undefined;
let fake: FakeTwilio | undefined;
const procs: Proc[] = [];
afterEach(async () => {
  for (const p of procs.splice(0))
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  await relay?.stop(0);
  relay = undefined;
  await fake?.close();
  home?.cleanup();
});
beforeAll(() => {
  expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
});

async function start(extra: Record<string, unknown> = {}) {
  fake = await startFakeTwilio();
  home = makeHome({
    twilio: fakeTwilioSection(fake),
    ...extra,
  });
  relay = await startRelay(home.ctx());
  const port = (relay.channels.get('twilio') as TwilioChannel).port();
  return `http://127.0.0.1:${port}/twilio/inbound`;
}

describe('agentwire relay with the Twilio channel', () => {
  it('answers a signed webhook through the queue, the agent and the REST API', async () => {
    const url = await start();
    const res = await twilioPost(url, smsParams({ Body: 'hello agent' }));
    expect(res.status).toBe(200);
    expect(await waitFor(() => (fake?.created.length ?? 0) > 0)).toBe(true);
    expect(fake?.created.map((m) => [m.to, m.body])).toEqual([['+15551234567', 'reply: hello agent']]);
  });

  it('two simultaneous deliveries of one MessageSid make one run and one reply', async () => {
    const url = await start();
    const params = smsParams({ Body: 'only once', MessageSid: `SM${'7'.repeat(32)}` });
    const [a, b] = await Promise.all([twilioPost(url, params), twilioPost(url, params)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(await waitFor(() => (fake?.created.length ?? 0) > 0)).toBe(true);
    await relay?.queue.whenIdle();
    expect(home.events().filter((e) => e.ev === 'start')).toHaveLength(1);
    expect(fake?.created.map((m) => m.body)).toEqual(['reply: only once']);
  });

  it('acknowledges at once while a 30 s agent run is still going', async () => {
    const url = await start();
    const res = await twilioPost(url, smsParams({ Body: 'think hard sleep:30000' }));
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<Response/>');
    // The run the message started is under way, and still far from done, after the 200 arrived.
    expect(await waitFor(() => home.events().some((e) => e.ev === 'sleep'))).toBe(true);
    expect(home.events().filter((e) => e.ev === 'end')).toEqual([]);
    expect(fake?.created).toEqual([]);
  });

  it('a long reply is split within the Twilio limit, in order', async () => {
    const url = await start();
    await twilioPost(url, smsParams({ Body: 'flood:5000' }));
    expect(await waitFor(() => (fake?.created.length ?? 0) >= 4)).toBe(true);
    await relay?.queue.whenIdle();
    const bodies = fake?.created.map((m) => m.body ?? '') ?? [];
    for (const b of bodies) expect(b.length).toBeLessThanOrEqual(1600);
    expect(bodies.join('')).toBe('x'.repeat(5000));
  });
});

describe('agentwire relay with Twilio attachments', () => {
  const mediaParams = (messageSid: string, mediaSid: string, body: string) =>
    smsParams({
      MessageSid: messageSid,
      Body: body,
      NumMedia: '1',
      MediaUrl0: fake!.mediaUrl(messageSid, mediaSid),
      MediaContentType0: 'image/png',
    });
  const attached = (prompt: string) => /\[image attached: (\S+)/.exec(prompt)?.[1];

  it('acknowledges before the attachment is downloaded; the run sees the file', async () => {
    const url = await start();
    let open!: () => void;
    const gate = new Promise<void>((r) => {
      open = r;
    });
    fake!.media.set('ME1', { type: 'gate', data: Buffer.from('PNG!'), contentType: 'image/png', open: gate });
    // Answered while the media server still holds the download back.
    const res = await twilioPost(url, mediaParams(`SM${'3'.repeat(32)}`, 'ME1', 'look'));
    expect(res.status).toBe(200);
    expect(home.events().filter((e) => e.ev === 'start')).toEqual([]);
    open();
    expect(await waitFor(() => (fake?.created.length ?? 0) > 0)).toBe(true);
    const prompt = home.events().find((e) => e.ev === 'start')?.prompt ?? '';
    expect(prompt).toContain('look');
    expect(readFileSync(attached(prompt) ?? '', 'utf8')).toBe('PNG!');
    expect(fake!.mediaRequests).toHaveLength(1);
  });

  it('a message stored before a stop gets its attachment downloaded before its run after the restart', async () => {
    const url = await start({ queue: { maxConcurrentRuns: 1, whileBusy: 'followup' } });
    fake!.media.set('ME2', { type: 'bytes', data: Buffer.from('later'), contentType: 'image/png' });
    // The chat's lane is busy, so the message with the attachment waits in the store.
    await twilioPost(url, smsParams({ MessageSid: `SM${'4'.repeat(32)}`, Body: 'first sleeponce:30000' }));
    expect(await waitFor(() => home.events().some((e) => e.ev === 'sleep'))).toBe(true);
    expect((await twilioPost(url, mediaParams(`SM${'5'.repeat(32)}`, 'ME2', 'then this'))).status).toBe(200);
    await relay!.stop(0);
    relay = undefined;
    expect(fake!.mediaRequests).toEqual([]);

    relay = await startRelay(home.ctx());
    expect(await waitFor(() => (fake?.created.length ?? 0) >= 2)).toBe(true);
    const prompt =
      home.events().find((e) => e.ev === 'start' && e.prompt?.includes('then this'))?.prompt ?? '';
    expect(readFileSync(attached(prompt) ?? '', 'utf8')).toBe('later');
    expect(fake!.mediaRequests).toHaveLength(1);
  });
});

describe('agentwire relay start-up failures', () => {
  it('a channel that fails to start releases the lock and the store', async () => {
    home = makeHome();
    const failing = {
      name: 'twilio' as const,
      enabled: () => true,
      create: () => ({
        name: 'twilio' as const,
        textLimit: 1600,
        start: async () => {
          throw new Error('port in use');
        },
        stop: async () => undefined,
        send: async () => ({ ok: true as const }),
        status: () => ({ type: 'stopped' as const }),
      }),
    };
    await expect(startRelay(home.ctx(), { channels: [failing] })).rejects.toThrow('port in use');
    expect(existsSync(join(home.dir, 'relay.lock'))).toBe(false);
    // The next start is not blocked by anything the failed one left.
    relay = await startRelay(home.ctx(), {
      channels: [{ ...failing, create: () => ({ ...failing.create(), start: async () => undefined }) }],
    });
    expect(relay.channels.has('twilio')).toBe(true);
  });
});

// Three relay processes one after another, each loading the whole built relay: on a loaded machine
// that alone can take most of the default 20 s, so each wait is bounded by what a slow start needs.
const SLOW = 45_000;

describe('agentwire relay process killed between "agent finished" and "sent"', () => {
  it('the reply goes out exactly once after the restart', { timeout: 4 * SLOW }, async () => {
    fake = await startFakeTwilio();
    // Twilio is down: every create fails with a 5xx until the test says otherwise.
    fake.failNext(...Array.from({ length: 500 }, () => ({ status: 503, code: 20500 })));
    const port = await freePort();
    home = makeHome({
      twilio: fakeTwilioSection(fake, port),
      console: { enabled: false },
    });
    // Debug lines in the log file: a failure shows what each relay did (logTail).
    const env = { ...home.env, TWILIO_ACCOUNT_SID: '', TWILIO_AUTH_TOKEN: '', AGENTWIRE_LOG_LEVEL: 'debug' };
    const startProc = () => {
      const p = spawnNode([MAIN, 'relay'], env);
      procs.push(p);
      return p;
    };
    const a = startProc();
    const url = `http://127.0.0.1:${port}/twilio/inbound`;
    expect((await postWhenUp(url, smsParams({ Body: 'hello agent' }))).status).toBe(200);
    // The agent finished and the reply was tried (and refused by Twilio): now the relay dies.
    expect(await waitFor(() => home.events().some((e) => e.ev === 'end'), SLOW), a.stderr()).toBe(true);
    expect(await waitFor(() => (fake?.attempts.length ?? 0) >= 2, SLOW), a.stderr()).toBe(true);
    a.child.kill('SIGKILL');
    await a.exit;
    expect(fake.created).toEqual([]);

    fake.clearFailures();
    const b = startProc();
    expect(
      await waitFor(() => (fake?.created.length ?? 0) >= 1, SLOW),
      `${b.stderr()}\n${logTail(home)}`,
    ).toBe(true);
    b.child.kill('SIGTERM');
    // Bounded, and saying what the relay did: a CI run once waited out the whole test limit here.
    const bExit = await exitWithin(b, SLOW);
    expect(bExit, `relay b did not exit on SIGTERM: ${b.stderr()}\n${logTail(home)}`).toBeDefined();
    expect(bExit?.code).toBe(0);
    // A third start finds nothing left to send.
    const c = startProc();
    expect(
      await postWhenUp(url, smsParams({ MessageSid: `SM${'2'.repeat(32)}`, Body: 'again' })).then(
        (r) => r.status,
      ),
    ).toBe(200);
    expect(await waitFor(() => (fake?.created.length ?? 0) >= 2, SLOW), c.stderr()).toBe(true);
    c.child.kill('SIGTERM');
    const cExit = await exitWithin(c, SLOW);
    expect(cExit, `relay c did not exit on SIGTERM: ${c.stderr()}\n${logTail(home)}`).toBeDefined();
    expect(cExit?.code).toBe(0);

    expect(fake.created.map((m) => [m.to, m.body])).toEqual([
      ['+15551234567', 'reply: hello agent'],
      ['+15551234567', 'reply: again'],
    ]);
    // The run had finished before the kill: it is not run again, only its reply is sent.
    expect(home.events().filter((e) => e.ev === 'start' && e.prompt === 'hello agent')).toHaveLength(1);
  });
});
