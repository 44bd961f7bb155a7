// Two built relays on one PostgreSQL database with two state folders and one shared folder
// (`store.sharedFolder`): a chat's files and its session as it moves between them. A file received
// by one relay is read by the other's agent (after a kill, and when the chat stays with its last
// runner); a reply's file staged by a relay killed before sending it is sent by the other; a media
// URL one relay issued is served by the other; a chat that moves says once that its context was
// reset. Without a shared folder, each relay says once that its media folder is not shared.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type FakeTwilio,
  fakeTwilioSection,
  startFakeTwilio,
} from '../channels/twilio/helpers/fake-twilio.js';
import { postWhenUp, smsParams } from '../channels/twilio/helpers/harness.js';
import {
  alive,
  type FakeEvent,
  freePort,
  type Home,
  killOrphanGroup,
  MAIN,
  makeHome,
  type Proc,
  spawnNode,
  waitFor,
} from '../e2e/helpers.js';
import { tempDir } from '../helpers/tmp.js';
import { freshDatabase } from '../support/postgres-db.js';

const MEDIA_BASE = 'https://lb.example.com/twilio/inbound/media';
const MOVED = '(Context was reset: this chat moved to another machine, which does not have its session.)';

let fake: FakeTwilio;
const homes: Home[] = [];
const procs: Proc[] = [];
let shared = '';

beforeEach(async () => {
  fake = await startFakeTwilio();
  shared = tempDir('aw-shared-');
});

afterEach(async () => {
  for (const p of procs.splice(0))
    if (p.child.exitCode === null && p.child.signalCode === null) {
      p.child.kill('SIGKILL');
      await p.exit;
    }
  for (const e of events()) if (e.ev === 'start' && alive(e.pid)) killOrphanGroup(e.pid);
  await fake.close();
  for (const h of homes.splice(0)) h.cleanup();
});

function events(): (FakeEvent & { ppid?: number })[] {
  const log = join(shared, 'fake.jsonl');
  return existsSync(log)
    ? readFileSync(log, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];
}

/** A state folder for one relay on `url`; `withShared`: media in the shared folder. */
function home(port: number, withShared: boolean): Home {
  const h = makeHome({
    twilio: fakeTwilioSection(fake, port, { mediaBaseUrl: MEDIA_BASE }),
    console: { enabled: false },
    store: { engine: 'postgres', ...(withShared && { sharedFolder: shared }) },
    queue: { leaseSeconds: 9 },
    media: { allowedRoots: [join(shared, 'media', 'inbound')] },
    agent: { env: { FAKE_LOG: join(shared, 'fake.jsonl'), FAKE_SESSIONS: join(shared, 'fake-sessions') } },
  });
  homes.push(h);
  return h;
}

function start(h: Home, url: string): Proc {
  const p = spawnNode([MAIN, 'relay'], { ...h.env, AGENTWIRE_STORE_URL: url, AGENTWIRE_LOG_LEVEL: 'warn' });
  procs.push(p);
  return p;
}

async function kill(p: Proc): Promise<void> {
  p.child.kill('SIGKILL');
  await p.exit;
}

/** A signed webhook with one text attachment served by the fake Twilio. */
function withFile(port: number, n: number, body: string, bytes: string) {
  const sid = `SM${String(n).repeat(32)}`;
  fake.media.set(`ME${n}`, { type: 'bytes', data: Buffer.from(bytes), contentType: 'text/plain' });
  return postWhenUp(
    `http://127.0.0.1:${port}/twilio/inbound`,
    smsParams({
      MessageSid: sid,
      Body: body,
      NumMedia: '1',
      MediaUrl0: fake.mediaUrl(sid, `ME${n}`),
      MediaContentType0: 'text/plain',
    }),
  );
}

const bodies = () => fake.created.map((m) => m.body ?? '');
const startOf = (word: string) => events().filter((e) => e.ev === 'start' && e.prompt?.includes(word));

describe('files and sessions across two relays on one database', () => {
  it('a moved chat finds its files, sends what the other staged, serves its URLs, and says its context was reset', async () => {
    const url = await freshDatabase();
    const [portA, portB] = [await freePort(), await freePort()];
    const [homeA, homeB] = [home(portA, true), home(portB, true)];

    // A receives a file, answers with it, and is killed while Twilio refuses every send.
    fake.outage({ status: 500, code: 20500 });
    const a = start(homeA, url);
    expect((await withFile(portA, 1, 'one catmedia sendmedia', 'first bytes')).status, a.stderr()).toBe(200);
    expect(await waitFor(() => fake.attempts.length > 0), a.stderr()).toBe(true);
    await kill(a);
    fake.outage(undefined);
    // B starts and sends A's reply: its text and the file A staged.
    const b = start(homeB, url);
    expect(await waitFor(() => fake.created.some((m) => m.mediaUrl.length > 0)), b.stderr()).toBe(true);
    expect(bodies().join('\n')).toContain('file: first bytes');
    const issued = fake.created.find((m) => m.mediaUrl.length > 0)?.mediaUrl[0] ?? '';
    expect(issued.startsWith(`${MEDIA_BASE}/`)).toBe(true);

    // A again: a file it receives is run by B, the chat's last runner, whose reply says once that
    // the context was reset (the session was A's).
    const a2 = start(homeA, url);
    expect((await withFile(portA, 2, 'two catmedia', 'second bytes')).status, a2.stderr()).toBe(200);
    expect(await waitFor(() => bodies().some((t) => t.includes('file: second bytes'))), b.stderr()).toBe(
      true,
    );
    expect(startOf('two catmedia').map((e) => e.ppid)).toEqual([b.child.pid]);
    const second = bodies().find((t) => t.includes('two catmedia')) ?? '';
    expect(second.startsWith(MOVED)).toBe(true);

    // A file B receives, whose run is cut by B's death, is read by A's re-run.
    expect((await withFile(portB, 3, 'three catmedia sleeponce:600000', 'third bytes')).status).toBe(200);
    expect(await waitFor(() => events().some((e) => e.ev === 'sleep'))).toBe(true);
    const hung = startOf('three catmedia')[0];
    expect(hung?.ppid).toBe(b.child.pid);
    await kill(b);
    if (hung) killOrphanGroup(hung.pid);
    expect(await waitFor(() => bodies().some((t) => t.includes('file: third bytes'))), a2.stderr()).toBe(
      true,
    );
    expect(startOf('three catmedia').map((e) => e.ppid)).toEqual([b.child.pid, a2.child.pid]);
    const third = bodies().find((t) => t.includes('file: third bytes')) ?? '';
    expect(third.startsWith(MOVED)).toBe(true);
    // Said once per move: no reply of B's own chat turn said it.
    expect(bodies().filter((t) => t.startsWith(MOVED))).toHaveLength(2);

    // The URL B issued for the first file, served by A after B died.
    const name = issued.slice(MEDIA_BASE.length + 1);
    const got = await fetch(`http://127.0.0.1:${portA}/twilio/inbound/media/${name}`);
    expect(got.status).toBe(200);
    expect(await got.text()).toBe('first bytes');
    for (const h of [homeA, homeB]) expect(existsSync(join(h.dir, 'media', 'inbound'))).toBe(false);
  });

  it('without a shared folder, each relay says once that its media folder is not shared', async () => {
    const url = await freshDatabase();
    const [portA, portB] = [await freePort(), await freePort()];
    const [homeA, homeB] = [home(portA, false), home(portB, false)];
    const a = start(homeA, url);
    const b = start(homeB, url);
    const said = (p: Proc) =>
      p
        .stderr()
        .split('\n')
        .filter((l) => l.includes('is not shared with the relay'));
    expect(await waitFor(() => said(a).length > 0 && said(b).length > 0), a.stderr() + b.stderr()).toBe(true);
    expect(said(a)[0]).toContain(
      `the media folder ${join(homeA.dir, 'media')} is not shared with the relay on`,
    );
    expect(said(a)[0]).toContain(`(pid ${b.child.pid})`);
    expect([said(a).length, said(b).length]).toEqual([1, 1]);
  });
});
