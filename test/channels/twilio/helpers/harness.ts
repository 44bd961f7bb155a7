// Real things in the middle: a real SQLite file in a temp folder, the real express app on 127.0.0.1,
// requests signed with the twilio SDK's own signing code, and a tiny real inbox table standing in for
// the core's (insert-if-absent on (channel, message_id), so concurrent duplicates make one row).
import { rmSync } from 'node:fs';
import { Writable } from 'node:stream';
import twilio from 'twilio';
import type { SingleConsumer } from '../../../../src/channels/single.js';
import { createTwilioChannel, type TwilioChannel } from '../../../../src/channels/twilio/index.js';
import type { InboundHandler, InboundOutcome } from '../../../../src/channels/types.js';
import { type Paths, resolvePaths } from '../../../../src/config/paths.js';
import { type Config, configSchema } from '../../../../src/config/schema.js';
import type { InboundMessage } from '../../../../src/core/types.js';
import { createLogger } from '../../../../src/log.js';
import { type Db, migrate, openDb } from '../../../../src/store/sqlite/db.js';
import { mediaHostMigration } from '../../../../src/store/sqlite/media-links.js';
import { sqliteFile, storeOver } from '../../../../src/store/sqlite/open.js';
import { twilioMigration } from '../../../../src/store/sqlite/twilio-sends.js';
import { tempDir } from '../../../helpers/tmp.js';
import { ACCOUNT, TOKEN } from './fake-twilio.js';

export interface LogCapture {
  lines: string[];
  text(): string;
}

export function captureLog() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  const log = createLogger({ level: 'debug', destination });
  return { log, capture: { lines, text: () => lines.join('') } as LogCapture };
}

export function tempPaths(): Paths {
  const home = tempDir('aw-twilio-');
  return resolvePaths({ AGENTWIRE_HOME: home });
}

export function twilioConfig(
  twilioSection: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Config {
  return configSchema.parse({
    twilio: {
      enabled: true,
      accountSid: ACCOUNT,
      authToken: TOKEN,
      from: '+15550000000',
      allowFrom: ['+15551234567'],
      // Never the real Twilio: a port nothing listens on unless a test brings its fake.
      apiBaseUrl: 'http://127.0.0.1:9',
      ...twilioSection,
      webhook: { host: '127.0.0.1', port: 0, ...((twilioSection.webhook as object) ?? {}) },
    },
    ...extra,
  });
}

/** The inbox stub: one durable row per (channel, message_id), claimed atomically. */
export function createInbox(db: Db, after?: (msg: InboundMessage) => void) {
  db.exec(`CREATE TABLE IF NOT EXISTS test_inbox (
    id INTEGER PRIMARY KEY, channel TEXT NOT NULL, message_id TEXT NOT NULL, chat_id TEXT NOT NULL,
    text TEXT NOT NULL, media TEXT NOT NULL, UNIQUE (channel, message_id))`);
  const insert = db.prepare(
    'INSERT INTO test_inbox (channel, message_id, chat_id, text, media) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
  );
  const handler: InboundHandler = async (msg): Promise<InboundOutcome> => {
    const r = insert.run(msg.channel, msg.messageId, msg.chatId, msg.text, JSON.stringify(msg.media));
    if (Number(r.changes) === 0) return { type: 'duplicate' };
    after?.(msg);
    return { type: 'stored', inboxId: Number(r.lastInsertRowid) };
  };
  const rows = () =>
    db.prepare('SELECT message_id, chat_id, text, media FROM test_inbox ORDER BY id').all() as {
      message_id: string;
      chat_id: string;
      text: string;
      media: string;
    }[];
  return { handler, rows };
}

export interface Harness {
  paths: Paths;
  db: Db;
  channel: TwilioChannel;
  capture: LogCapture;
  base: string;
  stop(): Promise<void>;
}

export async function startChannel(
  config: Config,
  handler: (db: Db) => InboundHandler,
  opts: { env?: NodeJS.ProcessEnv; paths?: Paths; db?: Db; single?: SingleConsumer } = {},
): Promise<Harness & { handler: InboundHandler }> {
  const paths = opts.paths ?? tempPaths();
  // A folder made here goes with stop(): a channel started in a beforeAll outlives any one test.
  const made = opts.paths ? undefined : paths.home;
  const db = opts.db ?? openDb(sqliteFile(paths.home), []);
  migrate(db, [twilioMigration, mediaHostMigration]);
  const { log, capture } = captureLog();
  const channel = createTwilioChannel({
    config,
    paths,
    store: storeOver(db),
    log,
    env: opts.env ?? {},
    retryDelayMs: 5,
    storeRetry: { delaysMs: [5, 5], maxHeld: 10, noticeAfterMs: 200 },
    ...(opts.single && { single: opts.single }),
  });
  const h = handler(db);
  await channel.start(h);
  return {
    paths,
    db,
    channel,
    capture,
    handler: h,
    base: `http://127.0.0.1:${channel.port()}`,
    stop: async () => {
      await channel.stop();
      if (made) rmSync(made, { recursive: true, force: true });
    },
  };
}

/** Posts form params as Twilio would: signed over `signedUrl` (default: the URL posted to). */
export async function twilioPost(
  postUrl: string,
  params: Record<string, string>,
  opts: {
    signedUrl?: string;
    token?: string;
    signature?: string | null;
    contentType?: string;
    body?: string;
  } = {},
): Promise<Response> {
  const headers: Record<string, string> = {
    'content-type': opts.contentType ?? 'application/x-www-form-urlencoded',
  };
  const sig =
    opts.signature === undefined
      ? twilio.getExpectedTwilioSignature(opts.token ?? TOKEN, opts.signedUrl ?? postUrl, params)
      : opts.signature;
  if (sig !== null) headers['x-twilio-signature'] = sig;
  return fetch(postUrl, {
    method: 'POST',
    headers,
    body: opts.body ?? new URLSearchParams(params).toString(),
  });
}

export function smsParams(over: Record<string, string> = {}): Record<string, string> {
  return {
    MessageSid: `SM${'1'.repeat(32)}`,
    AccountSid: ACCOUNT,
    From: '+15551234567',
    To: '+15550000000',
    Body: 'hello agent',
    NumMedia: '0',
    ...over,
  };
}

/** Posts until the relay process listens (it is starting up), then returns the response. */
export async function postWhenUp(url: string, params: Record<string, string>): Promise<Response> {
  // Bounded by time, not by tries: a relay process on a loaded machine can take many seconds to listen.
  const end = Date.now() + 45_000;
  for (;;) {
    try {
      return await twilioPost(url, params);
    } catch (err) {
      if (Date.now() > end) throw err;
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}
