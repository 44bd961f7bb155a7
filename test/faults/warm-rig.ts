// The relay path for the warm fault rows: startRelay (store, queue, agent resolver, warm pool,
// reaper, outbox) with a recording channel in place of Twilio, and the fake claude stream-json CLI
// (test/fixtures/fake-claude-stream.mjs) as the warm agent, a real child process. Its first word
// picks the fault; every start is logged (FAKE_CLAUDE_LOG) so the rows can tell processes apart.

import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { Channel, InboundHandler } from '../../src/channels/types.js';
import { resolvePaths } from '../../src/config/paths.js';
import { configSchema } from '../../src/config/schema.js';
import type { OutboundItem } from '../../src/core/types.js';
import { type RunningRelay, startRelay } from '../../src/relay.js';
import { sqliteFile } from '../../src/store/sqlite/open.js';
import { alive } from '../e2e/helpers.js';
import { memoryLog } from '../queue/helpers.js';

export const FAKE_STREAM = join(process.cwd(), 'test/fixtures/fake-claude-stream.mjs');
export const CHAT = '+15550000001';

class RecordingChannel implements Channel {
  readonly name = 'twilio' as const;
  readonly textLimit = 1600;
  heard: string[] = [];
  onInbound?: InboundHandler;
  async start(onInbound: InboundHandler) {
    this.onInbound = onInbound;
  }
  async stop() {}
  status() {
    return { type: 'connected' as const, since: 0 };
  }
  async send(_chatId: string, item: OutboundItem) {
    this.heard.push(item.type === 'text' ? item.text : `[${item.type}]`);
    return { ok: true as const };
  }
}

export interface Start {
  pid: number;
  session: string;
  resume: boolean;
}

export interface WarmRig {
  heard: string[];
  lines: Record<string, unknown>[];
  say(text: string): Promise<void>;
  inbox(): { text: string; status: string; note: string | null }[];
  outbox(): string[];
  /** Every start of the fake CLI, oldest first. */
  starts(): Start[];
  close(): Promise<void>;
}

export async function startWarmRig(agent: Record<string, unknown> = {}): Promise<WarmRig> {
  const dir = mkdtempSync(join(tmpdir(), 'aw-warm-faults-'));
  const log = join(dir, 'starts.jsonl');
  const raw = {
    whatsapp: { enabled: false },
    agent: {
      kind: 'claude',
      mode: 'warm',
      command: [process.execPath, FAKE_STREAM],
      timeoutSeconds: 30,
      env: { FAKE_CLAUDE_LOG: log },
      ...agent,
    },
  };
  writeFileSync(join(dir, 'agentwire.json5'), JSON.stringify(raw, null, 2));
  const channel = new RecordingChannel();
  const { log: logger, lines } = memoryLog();
  const ctx = {
    paths: resolvePaths({ AGENTWIRE_HOME: dir }),
    config: configSchema.parse(raw),
    log: logger,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  };
  const relay: RunningRelay = await startRelay(ctx, {
    services: [],
    channels: [{ name: 'twilio', enabled: () => true, create: () => channel }],
  });
  let seq = 0;
  const starts = (): Start[] =>
    existsSync(log)
      ? readFileSync(log, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Start)
      : [];
  // Read beside the relay, as `status` does: the relay's own handle stays inside its store.
  const db = new DatabaseSync(sqliteFile(ctx.paths.home), { readOnly: true });
  return {
    heard: channel.heard,
    lines,
    async say(text) {
      const r = await channel.onInbound?.({
        channel: 'twilio',
        chatId: CHAT,
        senderId: CHAT,
        messageId: `w${++seq}`,
        text,
        media: [],
        isGroup: false,
        mentioned: false,
        at: Date.now(),
      });
      if (r?.type !== 'stored' && r?.type !== 'command') throw new Error(`not taken: ${JSON.stringify(r)}`);
      await relay.queue.whenIdle();
    },
    inbox: () =>
      (db.prepare('SELECT text, status, note FROM inbox ORDER BY id').all() as WarmRigInbox[]).map((r) => ({
        ...r,
      })),
    outbox: () =>
      (db.prepare('SELECT status FROM outbox ORDER BY id').all() as { status: string }[]).map(
        (r) => r.status,
      ),
    starts,
    async close() {
      db.close();
      await relay.stop(0);
      for (const s of starts()) if (alive(s.pid)) process.kill(s.pid, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

type WarmRigInbox = { text: string; status: string; note: string | null };
