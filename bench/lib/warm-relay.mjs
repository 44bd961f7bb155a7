// The relay's own path for the warm bench, in this process: startRelay (store, queue, agent
// resolver, the warm pool when agent.mode is 'warm', outbox) with one recording channel in place
// of Twilio. A message goes in through the channel's inbound handler, as a webhook's would, and
// its reply comes out through the channel's send.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolvePaths } from '../../dist/config/paths.js';
import { configSchema } from '../../dist/config/schema.js';
import { createLogger } from '../../dist/log.js';
import { startRelay } from '../../dist/relay.js';

class RecordingChannel {
  name = 'twilio';
  textLimit = 1600;
  sent = [];
  onInbound;
  async start(onInbound) {
    this.onInbound = onInbound;
  }
  async stop() {}
  status() {
    return { type: 'connected', since: 0 };
  }
  async send(chatId, item) {
    this.sent.push({ chatId, text: item.text, at: performance.now() });
    return { ok: true };
  }
}

/** A state folder for one relay; `config` is the relay's config (whatsapp off is added). */
export function relayHome(config) {
  const dir = mkdtempSync(join(tmpdir(), 'aw-bench-warm-'));
  mkdirSync(dir, { recursive: true });
  const raw = { whatsapp: { enabled: false }, ...config };
  writeFileSync(join(dir, 'agentwire.json5'), JSON.stringify(raw, null, 2));
  return { dir, config: configSchema.parse(raw) };
}

/** Starts a relay on `home`; `say` hands one message in and resolves when its reply went out. */
export async function startBenchRelay(home) {
  const channel = new RecordingChannel();
  const log = createLogger({ level: 'silent', destination: { write() {} } });
  const ctx = { paths: resolvePaths({ AGENTWIRE_HOME: home.dir }), config: home.config, log, env: {} };
  const relay = await startRelay(ctx, {
    services: [],
    channels: [{ name: 'twilio', enabled: () => true, create: () => channel }],
  });
  let seq = 0;
  return {
    channel,
    relay,
    /** Message in → reply out, in ms; throws unless exactly one reply came. */
    async say(chatId, text) {
      const before = channel.sent.length;
      const t0 = performance.now();
      const r = await channel.onInbound({
        channel: 'twilio',
        chatId,
        senderId: chatId,
        messageId: `bench-${++seq}-${Date.now()}`,
        text,
        media: [],
        isGroup: false,
        mentioned: false,
        at: Date.now(),
      });
      if (r.type !== 'stored') throw new Error(`the relay did not take the message: ${JSON.stringify(r)}`);
      await relay.queue.whenIdle();
      const replies = channel.sent.slice(before);
      if (replies.length !== 1) throw new Error(`expected one reply, got ${JSON.stringify(replies)}`);
      return { ms: replies[0].at - t0, text: replies[0].text };
    },
    stop: () => relay.stop(10_000),
  };
}
