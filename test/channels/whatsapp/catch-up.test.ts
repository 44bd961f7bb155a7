// Catch-up after a reconnect, through the real queue and inbox (real SQLite): WhatsApp
// replays what it queued during an outage as `append` upserts. Every message inside the outage runs
// exactly once, however often it is replayed; nothing from before the outage runs.
import { join } from 'node:path';
import type { WAMessage } from '@whiskeysockets/baileys';
import { afterEach, describe, expect, it } from 'vitest';
import type { Channel } from '../../../src/channels/types.js';
import { configSchema } from '../../../src/config/schema.js';
import type { ChannelName } from '../../../src/core/types.js';
import { Queue, type QueueConfig } from '../../../src/queue/queue.js';
import { openDb } from '../../../src/store/sqlite/db.js';
import { QUEUE_MIGRATIONS } from '../../../src/store/sqlite/queue-schema.js';
import { sqliteQueueStore } from '../../../src/store/sqlite/queue-sqlite.js';
import { whatsappMigration } from '../../../src/store/sqlite/whatsapp-auth.js';
import { FakeAgent, memoryLog, ok } from '../../queue/helpers.js';
import { OWNER_PN } from './fake-socket.js';
import { setup, VirtualScheduler } from './harness.js';
import { text } from './messages.js';

const MIN = 60_000;
const ALICE = '15557654321@s.whatsapp.net';
const SELF = `${OWNER_PN}@s.whatsapp.net`;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function relay() {
  const clock = new VirtualScheduler();
  const h = await setup({
    config: { whatsapp: { allowFrom: ['+15557654321'], liveness: { quietMinutes: 30 } } },
    deps: { scheduler: clock, now: clock.now },
  });
  const db = openDb(join(h.dir, 'agentwire.db'), [...QUEUE_MIGRATIONS, whatsappMigration]);
  const agent = new FakeAgent((req) => ok(`re: ${req.prompt.slice(-20)}`));
  const queue = new Queue({
    store: sqliteQueueStore(db),
    channels: new Map<ChannelName, Channel>([['whatsapp', h.channel]]),
    resolve: agent.resolver(),
    mediaPolicy: async () => [],
    config: configSchema.parse({}) as QueueConfig,
    log: memoryLog().log,
    defaultCwd: h.dir,
    delivery: { retryForMs: 10_000, backoffMs: () => 1, waitMs: 2 },
  });
  await queue.start();
  await h.channel.start(queue.handleInbound);
  h.sock().open();
  cleanups.push(async () => {
    await queue.shutdown(0);
    await h.channel.stop();
    db.close();
  });
  const at = (offsetMs: number) => Math.floor((clock.now() + offsetMs) / 1000);
  const settle = async () => {
    await h.channel.idle();
    await queue.deliverer.idle();
  };
  const prompts = () => agent.calls.map((c) => c.request.prompt);
  return { h, clock, queue, agent, db, at, settle, prompts };
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !check(); i++) await new Promise((r) => setTimeout(r, 2));
}

describe('WhatsApp catch-up after a reconnect', () => {
  it('a silent link found by the watchdog: its whole backlog runs once, nothing older', async () => {
    const r = await relay();
    const t0 = r.clock.now();
    const before: WAMessage = text({ chat: ALICE, ts: r.at(-20 * MIN) }, 'from before the outage');
    r.h.sock().upsert([text({ chat: ALICE, ts: r.at(0) }, 'last one heard live')]);
    await until(() => r.agent.calls.length === 1);
    r.h.sock().usync = 'silent';
    await r.clock.advance(30 * MIN + 30_000); // probe, no answer, reconnect
    expect(r.h.sockets).toHaveLength(2);
    r.h.sock().open();
    // What WhatsApp queued while the link was dead: 10 and 25 minutes into a 30-minute outage, far
    // older than offlineWindowSeconds (5 minutes); and, with them, one message from before it.
    const during = [
      text({ chat: ALICE, ts: Math.floor((t0 + 10 * MIN) / 1000) }, 'sent 10 min into the outage'),
      text({ chat: ALICE, ts: Math.floor((t0 + 25 * MIN) / 1000) }, 'sent 25 min into the outage'),
    ];
    r.h.sock().upsert([before, ...during], 'append');
    await until(() => r.agent.calls.length >= 3);
    await r.settle();
    expect(r.prompts().map((p) => p.split('\n').at(-1))).toEqual([
      'last one heard live',
      'sent 10 min into the outage',
      'sent 25 min into the outage',
    ]);
  });

  it('the same backlog replayed again after a second reconnect, and live as notify, runs once', async () => {
    const r = await relay();
    const t0 = r.clock.now();
    r.h.sock().close(503, 'Stream Errored');
    await r.clock.advance(2_000);
    r.h.sock().open();
    const msg = text({ chat: ALICE, ts: Math.floor((t0 + 1_000) / 1000) }, 'during the drop');
    r.h.sock().upsert([msg], 'append');
    await until(() => r.agent.calls.length === 1);
    r.h.sock().close(428);
    await r.clock.advance(2_000);
    r.h.sock().open();
    r.h.sock().upsert([msg], 'append');
    r.h.sock().upsert([msg], 'notify');
    await r.settle();
    await new Promise((res) => setTimeout(res, 20));
    expect(r.agent.calls).toHaveLength(1);
  });

  it("the owner's own self-chat message from the outage runs; our reply's echo and history never do", async () => {
    const r = await relay();
    const t0 = r.clock.now();
    await r.h.channel.send(`+${OWNER_PN}`, { type: 'text', text: 'an earlier reply' });
    const echoId = r.h.sock().sent[0]!.options!.messageId!;
    r.h.sock().close(408, 'Connection was lost');
    await r.clock.advance(40 * MIN); // a long outage: degraded, slow retries
    r.h.sock().open();
    const ts = Math.floor((t0 + 20 * MIN) / 1000);
    r.h
      .sock()
      .upsert(
        [
          text({ chat: SELF, fromMe: true, id: echoId, ts: Math.floor(t0 / 1000) }, 'an earlier reply'),
          text({ chat: SELF, fromMe: true, ts }, 'typed on the phone during the outage'),
        ],
        'append',
      );
    r.h.sock().emit('messaging-history.set', {
      chats: [],
      contacts: [],
      messages: [text({ chat: ALICE, ts }, 'history sync is never a prompt')],
      isLatest: true,
    });
    await until(() => r.agent.calls.length >= 1);
    await r.settle();
    expect(r.prompts().map((p) => p.split('\n').at(-1))).toEqual(['typed on the phone during the outage']);
  });

  it('without an outage in this process (a restart), only offlineWindowSeconds counts', async () => {
    const r = await relay();
    r.h
      .sock()
      .upsert(
        [
          text({ chat: ALICE, ts: r.at(-60 * MIN) }, 'an hour old'),
          text({ chat: ALICE, ts: r.at(-4 * MIN) }, 'four minutes old'),
        ],
        'append',
      );
    await until(() => r.agent.calls.length >= 1);
    await r.settle();
    expect(r.prompts().map((p) => p.split('\n').at(-1))).toEqual(['four minutes old']);
  });
});
