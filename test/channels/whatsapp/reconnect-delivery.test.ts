// The WhatsApp channel under the real queue and outbox (real SQLite): the agent finishes, the
// connection drops before the reply goes out, WhatsApp stays away long enough for the channel to
// report itself degraded, and the reply still arrives exactly once after the reconnect.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
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
import { setup } from './harness.js';
import { text } from './messages.js';

const SELF = `${OWNER_PN}@s.whatsapp.net`;

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 2));
}

const ALICE = '15557654321@s.whatsapp.net';

/** A relay process over the channel's store: a fresh queue each time, as after a restart. */
function relayQueue(db: ReturnType<typeof openDb>, channel: Channel, agent: FakeAgent, dir: string): Queue {
  return new Queue({
    store: sqliteQueueStore(db),
    channels: new Map<ChannelName, Channel>([['whatsapp', channel]]),
    resolve: agent.resolver(),
    mediaPolicy: async () => [],
    config: configSchema.parse({}) as QueueConfig,
    log: memoryLog().log,
    defaultCwd: dir,
    delivery: { retryForMs: 60_000, backoffMs: () => 1, waitMs: 2 },
  });
}

describe('WhatsApp message redelivered after a restart (real inbox)', () => {
  it('runs once: the replay after the restart is a duplicate, gets its receipt, and no second reply', async () => {
    const h = await setup({ config: { whatsapp: { allowFrom: ['+15557654321'] } } });
    const db = openDb(join(h.dir, 'agentwire.db'), [...QUEUE_MIGRATIONS, whatsappMigration]);
    const agent = new FakeAgent(() => ok('answer'));
    const msg = text({ chat: ALICE }, 'run the tests');
    let queue = relayQueue(db, h.channel, agent, h.dir);
    await queue.start();
    try {
      await h.channel.start(queue.handleInbound);
      h.sock().open();
      h.sock().upsert([msg]);
      await until(() => h.sockets.flatMap((s) => s.sent).length >= 1);
      await queue.deliverer.idle();
      await queue.shutdown(0);
      await h.channel.stop();

      // The next process: WhatsApp replays the same message as an offline `append`.
      queue = relayQueue(db, h.channel, agent, h.dir);
      await queue.start();
      await h.channel.start(queue.handleInbound);
      const second = h.sock();
      second.open();
      second.upsert([msg], 'append');
      await h.channel.idle();
      await queue.deliverer.idle();
      expect(agent.calls).toHaveLength(1);
      expect(h.sockets.flatMap((s) => s.sent)).toHaveLength(1);
      expect(second.reads).toEqual([[msg.key]]); // durable already: acknowledged, not lost
    } finally {
      await queue.shutdown(0);
      await h.channel.stop();
      db.close();
    }
  });
});

describe('WhatsApp reply across a disconnect (real queue and outbox)', () => {
  it('agent finished, connection lost, degraded for a while: the reply is sent once after reconnect', async () => {
    // A budget of 0 makes the first failed reconnect "degraded" at once (as after a long outage).
    const h = await setup({
      deps: {
        backoff: { initialMs: 1, factor: 2, maxMs: 1, jitter: 0, budget: 0, slowMs: 1, maxRestarts: 3 },
      },
    });
    const db = openDb(join(h.dir, 'agentwire.db'), [...QUEUE_MIGRATIONS, whatsappMigration]);
    let sendCalls = 0;
    const counted: Channel = {
      ...h.channel,
      name: 'whatsapp',
      send: (chatId, item) => {
        sendCalls++;
        return h.channel.send(chatId, item);
      },
    };
    const agent = new FakeAgent();
    const { log } = memoryLog();
    const queue = new Queue({
      store: sqliteQueueStore(db),
      channels: new Map<ChannelName, Channel>([['whatsapp', counted]]),
      resolve: agent.resolver(),
      mediaPolicy: async () => [],
      config: configSchema.parse({}) as QueueConfig,
      log,
      defaultCwd: h.dir,
      // Few tries and no real waiting: spending tries while disconnected would fail the row fast.
      delivery: { retryForMs: 60_000, backoffMs: () => 1, waitMs: 2 },
    });
    await queue.start();
    try {
      await h.channel.start(queue.handleInbound);
      const first = h.sock();
      first.open();
      first.upsert([text({ chat: SELF, fromMe: true }, 'status report please')]);
      await agent.untilCalls(1);
      first.close(503, 'Stream Errored');
      expect(h.channel.status().type).toBe('degraded');
      agent.calls[0]!.finish(ok('all green'));
      // The outbox keeps looking while the channel is degraded, without giving the reply up.
      const failed = () => db.prepare("SELECT 1 FROM outbox WHERE status = 'failed'").all().length > 0;
      await until(() => sendCalls >= 10 || failed());
      const pending = db.prepare("SELECT status, tries FROM outbox WHERE status != 'sent'").all();
      expect(pending).toEqual([{ status: 'pending', tries: 0 }]);
      expect(h.sockets.flatMap((s) => s.sent)).toHaveLength(0);

      h.scheduler.fire(); // the slow retry: one new socket
      expect(h.sockets).toHaveLength(2);
      h.sock().open();
      await until(() => h.sockets.flatMap((s) => s.sent).length >= 1);
      await queue.deliverer.idle();
      const sent = h.sockets.flatMap((s) => s.sent);
      expect(sent.map((s) => (s.content as { text?: string }).text)).toEqual(['all green']);
      expect(db.prepare("SELECT status FROM outbox WHERE status != 'sent'").all()).toEqual([]);
    } finally {
      await queue.shutdown(0);
      await h.channel.stop();
      db.close();
    }
  });
});
