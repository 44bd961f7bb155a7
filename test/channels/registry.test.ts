// "A channel is one folder plus one line in a registry", tested: a channel src/ has never
// heard of runs end to end through the same plug-in shape, and src/ outside src/channels/ names no
// channel except where listed below with its reason.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CHANNELS, checkChatKey } from '../../src/channels/registry.js';
import { twilioPlugin } from '../../src/channels/twilio/plugin.js';
import { chunkText } from '../../src/core/chunk.js';
import { createQueue, type RunningRelay, startRelay } from '../../src/relay.js';
import { openDb } from '../../src/store/sqlite/db.js';
import { sqliteFile, storeOver } from '../../src/store/sqlite/open.js';
import { QUEUE_MIGRATIONS } from '../../src/store/sqlite/queue-schema.js';
import { ALL_MIGRATIONS } from '../../src/store/sqlite/schema.js';
import { type Home, makeHome } from '../e2e/helpers.js';
import { Loft, PIGEON_LIMIT, pigeonPlugin } from './fixtures/pigeon/plugin.js';

let home: Home | undefined;
let relay: RunningRelay | undefined;
afterEach(async () => {
  await relay?.stop(0);
  relay = undefined;
  home?.cleanup();
  home = undefined;
});

describe('a channel plug-in src/ does not know', () => {
  it('runs inbound → agent → reply, cut once by its own rules, deduped by the generic state', async () => {
    home = makeHome();
    const loft = new Loft();
    relay = await startRelay(home.ctx(), { channels: [pigeonPlugin(loft)], services: [] });
    expect([...relay.channels.keys()]).toEqual(['pigeon']);
    const words = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    expect(await loft.deliver?.(1, 'loft-7', words)).toBe('stored');
    expect(await loft.deliver?.(1, 'loft-7', words)).toBe('duplicate');
    expect(loft.dropped).toBe(1);
    await relay.queue.whenIdle();
    const texts = loft.sent.map((s) => (s.item.type === 'text' ? s.item.text : ''));
    expect(loft.sent.every((s) => s.chatId === 'loft-7')).toBe(true);
    // The reply is "reply: <prompt>", cut by the plug-in's limit, each chunk sent as one message.
    expect(texts.every((t) => t.length > 0 && t.length <= PIGEON_LIMIT)).toBe(true);
    expect(texts.join(' ').replace(/\s+/g, ' ')).toBe(`reply: ${words}`);
    const db = openDb(sqliteFile(home.ctx().paths.home), QUEUE_MIGRATIONS);
    const rows = db.prepare("SELECT count(*) AS n FROM outbox WHERE chat = 'pigeon:loft-7'").get() as {
      n: number;
    };
    db.close();
    expect(loft.sent.length).toBe(rows.n);
  });

  it('its chat keys and targets are checked by its own rules', () => {
    const pigeon = pigeonPlugin(new Loft());
    expect(checkChatKey('pigeon:loft-3', [pigeon])).toMatchObject({
      ok: true,
      channel: 'pigeon',
      chatId: 'loft-3',
    });
    expect(checkChatKey('pigeon:+15551234567', [pigeon])).toMatchObject({ ok: false });
    expect(checkChatKey('pigeon:loft-3')).toMatchObject({
      ok: false,
      error: expect.stringContaining('not a channel'),
    });
  });
});

describe('the registry', () => {
  it('names each channel once, with a plug-in name usable as a chat key prefix', () => {
    const names = CHANNELS.map((p) => p.name);
    expect(new Set(names).size).toBe(names.length);
    for (const p of CHANNELS) {
      expect(p.name).toMatch(/^[a-z][a-z0-9-]*$/);
      expect(p.isChatId(p.exampleChatId)).toBe(true);
      expect(checkChatKey(`${p.name}:${p.exampleChatId}`).ok).toBe(true);
    }
  });
});

describe('a reply is cut once', () => {
  it('a reply stored with no channel running (agentwire heartbeat) is cut by the channel plug-in, so the channel sends each chunk as one message', async () => {
    home = makeHome({ twilio: { chunkChars: 500 } });
    const ctx = home.ctx();
    const db = openDb(sqliteFile(ctx.paths.home), ALL_MIGRATIONS);
    // As openDirectRunner builds it: no channel runs in this process.
    const queue = createQueue(ctx, storeOver(db), new Map(), {
      textRules: (c) => CHANNELS.find((p) => p.name === c)?.textRules(ctx.config),
    });
    try {
      const text = Array.from({ length: 30 }, (_, i) => `Sentence number ${i} of the check-in.`).join(' ');
      await queue.deliver(
        'twilio:+15551234567',
        'k1',
        `${text}\n\n\`\`\`\n${'code line\n'.repeat(80)}\`\`\``,
        [],
      );
      const rows = (
        db.prepare("SELECT item FROM outbox WHERE chat = 'twilio:+15551234567' ORDER BY id").all() as {
          item: string;
        }[]
      ).map((r) => (JSON.parse(r.item) as { text: string }).text);
      const rules = twilioPlugin.textRules(ctx.config);
      expect(rules).toEqual({ limit: 500, fences: false });
      expect(rows.length).toBeGreaterThan(2);
      for (const row of rows) {
        expect(row.length).toBeLessThanOrEqual(500);
        // What the channel's send does with it: one message, unchanged (no second cut).
        expect(chunkText(row, rules)).toEqual([row]);
      }
      // SMS shows fences as text: the splitter added none.
      expect(rows.join('\n').split('```').length - 1).toBe(2);
    } finally {
      await queue.shutdown(0);
      db.close();
    }
  });
});

// src/ files outside src/channels/ whose code (comments aside) names a channel. Each is a channel's
// config section, or a feature only WhatsApp or Twilio has; none is a place a new channel must edit
// (the pigeon above runs without any of them). When every channel was wired by hand there were 44 such files, and a new
// channel had to edit 11 of them (docs/architecture.md lists them).
const ALLOWED: Record<string, string> = {
  // the channels' config sections (a new channel adds its own section: allowed by the goal)
  'src/config/schema-channels.ts': 'the whatsapp and twilio config sections',
  'src/config/schema-slack.ts': 'the slack config section',
  'src/config/schema.ts':
    'composes the config sections; their secret keys (SECRET_PATHS, masked by `config print`)',
  'src/config/load.ts': "the twilio section's TWILIO_* environment defaults",
  'src/config/schema-checkins.ts': 'an example chat key in the heartbeat/schedule key descriptions',
  'src/config/schema-send-to.ts': 'an example chat key in the tools.sendTo error message',
  'src/cli/main.ts': 'the product description in --help',
  // WhatsApp-only: linking a device (QR code, login, logout, relink), the link alert
  'src/cli/login.ts': '`agentwire login`: links a WhatsApp device',
  'src/cli/login-relay.ts': '`agentwire login` through a running relay',
  'src/cli/logout.ts': '`agentwire logout`: unlinks the WhatsApp device',
  'src/relay.ts': 'the WhatsApp relink service in SERVICE_FACTORIES',
  'src/ops/alert/policy.ts': 'the SMS alert when WhatsApp stays unlinked',
  'src/ops/alert/service.ts': 'the SMS alert when WhatsApp stays unlinked (sent through Twilio)',
  'src/ops/alert/wiring.ts': 'the SMS alert when WhatsApp stays unlinked',
  'src/web/client.ts': "the web console's WhatsApp QR code box",
  'src/web/page.ts': "the web console's WhatsApp QR code box",
  'src/web/server.ts': "the web console's QR code and relink endpoints",
  'src/web/service.ts': "the web console's QR code and relink endpoints",
  'src/ops/status/offline.ts': '`status` with no relay: whether WhatsApp credentials are stored',
  // the heartbeat's wait for a WhatsApp link (status --json value `whatsapp_link`, kept for readers)
  'src/heartbeat/listing.ts': "the `whatsapp_link` wait of a heartbeat whose default chat is WhatsApp's",
  'src/heartbeat/scheduler.ts': 'the `whatsapp_link` wait',
  'src/cli/schedules.ts': 'the `whatsapp_link` wait, rendered',
  'src/cli/heartbeat.ts': 'the `whatsapp_link` wait, rendered; an example chat key in --help',
  'src/ops/status/render.ts': 'the `whatsapp_link` wait, rendered',
  'src/ops/status/snapshot.ts': 'the `whatsapp_link` wait in the snapshot type',
  // WhatsApp's and Twilio's own doctor checks (a new channel brings its checks as plugin.doctor)
  'src/cli/doctor.ts': "doctor's live WhatsApp state from a running relay",
  'src/ops/doctor/run.ts': "runs the WhatsApp and Twilio checks, and probes Twilio's webhook port",
  'src/ops/doctor/twilio.ts': "Twilio's doctor checks",
  'src/ops/doctor/whatsapp.ts': "WhatsApp's doctor checks",
  'src/ops/doctor/whatsapp-live.ts': "WhatsApp's doctor checks against a running relay",
  'src/ops/doctor/link-state.ts': "WhatsApp's link state for doctor",
  // The store ports for the tables WhatsApp and Twilio had before the generic channel state (a
  // channel's state goes through the store seam); a new channel keeps its state in ChannelDeps.state
  // The contract (port types) and the SQLite engine (tables, queries) each name them: one module split in two.
  'src/store/admin.ts': "`status` and `doctor` read WhatsApp's stored credentials while no relay runs",
  'src/store/availability.ts': "the availability watch wraps the Store's `whatsapp` and `twilio` ports",
  'src/store/deferred.ts': "the deferred test engine wraps the Store's `whatsapp` and `twilio` ports",
  'src/store/open.ts': "the Store's `whatsapp` and `twilio` ports",
  'src/store/store.ts': 'the Store type: its `whatsapp` and `twilio` ports',
  'src/store/status-read.ts': "`status` reads WhatsApp's stored credentials (the linked account)",
  'src/store/twilio-sends.ts': "Twilio's send records",
  'src/store/whatsapp-auth.ts': "WhatsApp's credentials and keys",
  'src/store/whatsapp-messages.ts': "WhatsApp's sent messages and chat JIDs",
  'src/store/sqlite/admin.ts': "the SQLite engine reads WhatsApp's stored credentials read-only",
  'src/store/sqlite/open.ts': "the SQLite engine's `whatsapp` and `twilio` ports",
  'src/store/sqlite/schema.ts': "the WhatsApp and Twilio tables' migrations",
  'src/store/sqlite/status-read.ts': "`status` reads WhatsApp's stored credentials (the linked account)",
  'src/store/sqlite/twilio-sends.ts': "Twilio's send records (SQLite)",
  'src/store/sqlite/whatsapp-auth.ts': "WhatsApp's credentials and keys (SQLite)",
  'src/store/sqlite/whatsapp-messages.ts': "WhatsApp's sent messages and chat JIDs (SQLite)",
  'src/store/postgres/admin.ts': "the PostgreSQL engine reads WhatsApp's stored credentials read-only",
  'src/store/postgres/status-read.ts': "`status` reads WhatsApp's stored credentials (PostgreSQL)",
  'src/store/postgres/store.ts': "the PostgreSQL engine's `whatsapp` and `twilio` ports",
  'src/store/postgres/twilio-sends.ts': "Twilio's send records (PostgreSQL)",
  'src/store/postgres/whatsapp.ts': "WhatsApp's credentials, keys, sent messages and chat JIDs (PostgreSQL)",
  // `agentwire send` with no relay running: WhatsApp connects, Twilio makes one REST call; other
  // channels answer "start the relay"
  'src/send-once.ts': 'sending on WhatsApp or Twilio without a running relay',
};

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : [];
  });
}
const stripComments = (s: string) =>
  s.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');

// Every registered channel's name, and the libraries under them.
const NAMED = new RegExp([...CHANNELS.map((p) => p.name), 'baileys', 'grammy'].join('|'), 'i');

describe('channel names outside src/channels/', () => {
  it('appear only in the files listed, each with its reason', () => {
    const found = walk('src')
      .filter((f) => !f.startsWith('src/channels/'))
      .filter((f) => NAMED.test(stripComments(readFileSync(f, 'utf8'))))
      .sort();
    expect(found).toEqual(Object.keys(ALLOWED).sort());
  });
});
