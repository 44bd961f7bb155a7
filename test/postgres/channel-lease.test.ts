// Two relays built from dist/ on one PostgreSQL database, both with Telegram in long-polling mode
// against one fake Bot API on 127.0.0.1 that answers 409 Conflict to a long poll another getUpdates
// interrupts (as Telegram does for a bot with two consumers). Only the holder of the lease
// `channel:telegram` polls; the other shows the channel as held by it and still sends; after a
// SIGKILL of the first, the second takes the poll over and answers the next message.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dm, type FakeBotApi, startFakeBotApi, TOKEN } from '../channels/telegram/fake-bot-api.js';
import { type Home, MAIN, makeHome, type Proc, spawnNode } from '../e2e/helpers.js';
import { freshDatabase, queryRows } from '../support/postgres-db.js';

const USER = 4242;
let url: string;
let api: FakeBotApi;
const homes: Home[] = [];
const relays: Proc[] = [];

const rows = <T>(sql: string, params: unknown[] = []): Promise<T[]> => queryRows<T>(url, sql, params);

/** Polls a check every 50 ms until it holds or 20 s passed; whether it held. */
async function until(check: () => Promise<boolean> | boolean, ms = 20_000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; ) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

function home(): Home {
  const h = makeHome({
    telegram: { enabled: true, apiRoot: api.url, botToken: TOKEN, allowFrom: [USER] },
    console: { enabled: false },
    store: { engine: 'postgres' },
    // A short lease: a killed holder's poll is taken over within seconds.
    queue: { leaseSeconds: 3 },
  });
  homes.push(h);
  return h;
}

function start(h: Home): Proc {
  const p = spawnNode([MAIN, 'relay'], { ...h.env, AGENTWIRE_STORE_URL: url });
  relays.push(p);
  return p;
}

async function statusOf(h: Home): Promise<{
  channels: { name: string; state: string; holder?: string }[];
  leases?: { name: string; pid?: number }[];
}> {
  const p = spawnNode([MAIN, 'status', '--json'], { ...h.env, AGENTWIRE_STORE_URL: url });
  const { code } = await p.exit;
  expect(code, p.stderr()).toBe(0);
  return JSON.parse(p.stdout());
}

const telegramOf = async (h: Home) => (await statusOf(h)).channels.find((c) => c.name === 'telegram');
const replies = (text: string) =>
  api.callsOf('sendMessage').filter((c) => String(c.params.text).includes(text)).length;

beforeAll(async () => {
  expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
  url = await freshDatabase();
  api = await startFakeBotApi({ conflicts: true });
});

afterAll(async () => {
  for (const p of relays)
    if (p.child.exitCode === null && p.child.signalCode === null) {
      p.child.kill('SIGKILL');
      await p.exit;
    }
  await api?.close();
  for (const h of homes) h.cleanup();
});

describe('two relays on one PostgreSQL, one Telegram bot in long polling (built CLI)', () => {
  it('one polls, the other shows it as held by the first and takes over after a SIGKILL', {
    timeout: 150_000,
  }, async () => {
    const homeA = home();
    const homeB = home();
    const a = start(homeA);
    expect(await until(() => api.callsOf('getUpdates').length > 0), a.stderr()).toBe(true);
    const b = start(homeB);
    // B is running (its control socket answers) and says who polls. Until B's first lease round has
    // read the holder it may say only "held by another process": waited for, bounded.
    const namesA = new RegExp(`^held by \\S+ pid ${a.child.pid}$`);
    let held: Awaited<ReturnType<typeof telegramOf>>;
    const named = async () => {
      held = await telegramOf(homeB).catch(() => undefined);
      return held?.state === 'elsewhere' && namesA.test(held.holder ?? '');
    };
    expect(await until(named), `${JSON.stringify(held)}\n${b.stderr()}`).toBe(true);
    expect((await telegramOf(homeA))?.state).toBe('connected');
    // The lease as the store has it, in status too.
    const leases = (await statusOf(homeB)).leases ?? [];
    expect(leases.find((l) => l.name === 'channel:telegram')?.pid).toBe(a.child.pid);

    api.push(dm(USER, 'first message', 1));
    expect(await until(() => replies('reply: first message') > 0), a.stderr() + b.stderr()).toBe(true);
    // Both relays were up through a message: never two long polls at once.
    expect(api.conflicts()).toBe(0);

    // Killed once the reply is marked sent: a kill between the send and its mark is sent again by
    // design (at least once), which is not what this test looks at.
    const settled = async () =>
      (await rows<{ n: number }>("SELECT count(*)::int AS n FROM outbox WHERE status <> 'sent'"))[0]?.n ===
        0 &&
      (await rows<{ n: number }>("SELECT count(*)::int AS n FROM inbox WHERE status <> 'done'"))[0]?.n === 0;
    expect(await until(settled), a.stderr()).toBe(true);
    a.child.kill('SIGKILL');
    await a.exit;
    expect(await until(async () => (await telegramOf(homeB))?.state === 'connected'), b.stderr()).toBe(true);
    api.push(dm(USER, 'second message', 2));
    expect(await until(() => replies('reply: second message') > 0), b.stderr()).toBe(true);
    expect(replies('reply: first message')).toBe(1);
    expect(replies('reply: second message')).toBe(1);
    expect(api.conflicts()).toBe(0);
    const inbox = await rows<{ status: string }>('SELECT status FROM inbox ORDER BY id');
    expect(inbox).toEqual([{ status: 'done' }, { status: 'done' }]);
    b.child.kill('SIGTERM');
    expect((await b.exit).code, b.stderr()).toBe(0);
  });
});
