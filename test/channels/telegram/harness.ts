// Builds the Telegram channel against the fake Bot API: real SQLite for its state, a temp inbound
// folder, a captured log, and an inbox handler that records what reached it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createTelegramChannel, type TelegramChannelDeps } from '../../../src/channels/telegram/channel.js';
import type { InboundHandler, InboundOutcome } from '../../../src/channels/types.js';
import { type Config, configSchema } from '../../../src/config/schema.js';
import type { InboundMessage } from '../../../src/core/types.js';
import { createLogger } from '../../../src/log.js';
import { channelStateStore } from '../../../src/store/sqlite/channel-state.js';
import { type Db, openDb } from '../../../src/store/sqlite/db.js';
import { QUEUE_MIGRATIONS } from '../../../src/store/sqlite/queue-schema.js';
import { TOKEN } from './fake-bot-api.js';

export function telegramConfig(
  apiRoot: string,
  section: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): Config {
  return configSchema.parse({
    whatsapp: { enabled: false },
    telegram: { enabled: true, botToken: TOKEN, apiRoot, allowFrom: [42], ...section },
    ...extra,
  });
}

export interface Harness {
  dir: string;
  db: Db;
  logs: string[];
  received: InboundMessage[];
  handler: InboundHandler;
  make(config: Config, over?: Partial<TelegramChannelDeps>): ReturnType<typeof createTelegramChannel>;
  cleanup(): void;
}

export function harness(): Harness {
  const dir = mkdtempSync(join(tmpdir(), 'aw-telegram-'));
  const db = openDb(join(dir, 'agentwire.db'), QUEUE_MIGRATIONS);
  const logs: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  const log = createLogger({ level: 'debug', destination });
  const received: InboundMessage[] = [];
  const seen = new Set<string>();
  // The inbox's dedupe on (channel, messageId), as the real one does.
  const handler: InboundHandler = async (msg): Promise<InboundOutcome> => {
    const key = `${msg.channel}/${msg.messageId}`;
    if (seen.has(key)) return { type: 'duplicate' };
    seen.add(key);
    received.push(msg);
    return { type: 'stored', inboxId: received.length };
  };
  const channels: { stop(): Promise<void> }[] = [];
  return {
    dir,
    db,
    logs,
    received,
    handler,
    make(config, over = {}) {
      const ch = createTelegramChannel({
        config,
        paths: { inboundMedia: join(dir, 'inbound') },
        log,
        state: channelStateStore(db, 'telegram'),
        env: {},
        pollTimeoutSeconds: 1,
        handlerRetryDelaysMs: [],
        ...over,
      });
      channels.push(ch);
      return ch;
    },
    cleanup() {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Waits until `check` holds (polling, bounded): for effects of the background poll loop. */
export async function until(check: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
