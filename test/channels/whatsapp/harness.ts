// A WhatsApp channel over real SQLite in a temp folder, driven through a fake socket and a manual
// scheduler (no real timers, no network).
import { join } from 'node:path';
import { proto } from '@whiskeysockets/baileys';
import type { ChannelState, InboundOutcome } from '../../../src/channels/types.js';
import type { Timers } from '../../../src/channels/typing.js';
import { loadAuth } from '../../../src/channels/whatsapp/auth-store.js';
import type { Scheduler } from '../../../src/channels/whatsapp/connection.js';
import { createWhatsAppChannel, type WhatsAppChannelDeps } from '../../../src/channels/whatsapp/index.js';
import { configSchema } from '../../../src/config/schema.js';
import type { InboundMessage } from '../../../src/core/types.js';
import { createLogger } from '../../../src/log.js';
import { type Db, openDb } from '../../../src/store/sqlite/db.js';
import { storeOver } from '../../../src/store/sqlite/open.js';
import { whatsappAuthStore, whatsappMigration } from '../../../src/store/sqlite/whatsapp-auth.js';
import { tempDir } from '../../helpers/tmp.js';
import { type FakeSocket, fakeSockets, OWNER_LID, OWNER_PN } from './fake-socket.js';

export class ManualScheduler implements Scheduler, Timers {
  private next = 1;
  readonly pending = new Map<number, { fn: () => void; ms: number; repeat: boolean }>();
  setTimeout(fn: () => void, ms: number): number {
    const id = this.next++;
    this.pending.set(id, { fn, ms, repeat: false });
    return id;
  }
  clearTimeout(h: unknown): void {
    this.pending.delete(h as number);
  }
  setInterval(fn: () => void, ms: number): number {
    const id = this.next++;
    this.pending.set(id, { fn, ms, repeat: true });
    return id;
  }
  clearInterval(h: unknown): void {
    this.pending.delete(h as number);
  }
  delays(): number[] {
    return [...this.pending.values()].map((t) => t.ms);
  }
  /** Fires every pending timer once (intervals stay). */
  fire(): void {
    for (const [id, t] of [...this.pending]) {
      if (!t.repeat) this.pending.delete(id);
      t.fn();
    }
  }
}

/** Timers on a virtual clock: `advance` moves time and fires what falls due, in order. */
export class VirtualScheduler implements Scheduler {
  private next = 1;
  private readonly timers = new Map<number, { fn: () => void; at: number }>();
  constructor(public time = Date.UTC(2026, 0, 5, 9)) {}
  readonly now = (): number => this.time;
  setTimeout(fn: () => void, ms: number): number {
    const id = this.next++;
    this.timers.set(id, { fn, at: this.time + ms });
    return id;
  }
  clearTimeout(h: unknown): void {
    this.timers.delete(h as number);
  }
  pendingCount(): number {
    return this.timers.size;
  }
  /** Moves the clock by `ms`, firing due timers in time order and letting promises settle between. */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      await settle();
      const due = [...this.timers].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.time = Math.max(this.time, due[1].at);
      due[1].fn();
    }
    this.time = end;
    await settle();
  }
}

async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
  await new Promise((r) => setImmediate(r));
}

export async function seedLinkedCreds(db: Db): Promise<void> {
  const loaded = await loadAuth(whatsappAuthStore(db));
  if (!loaded.ok) throw new Error(loaded.error);
  const c = loaded.auth.state.creds;
  c.me = { id: `${OWNER_PN}:7@s.whatsapp.net`, lid: `${OWNER_LID}:7@lid`, name: 'Owner' };
  c.account = proto.ADVSignedDeviceIdentity.fromObject({
    details: Buffer.from('details'),
    accountSignatureKey: Buffer.alloc(32, 1),
    accountSignature: Buffer.alloc(64, 2),
    deviceSignature: Buffer.alloc(64, 3),
  });
  await loaded.auth.saveCreds();
}

export interface SetupOptions {
  config?: Record<string, unknown>;
  linked?: boolean;
  outcome?: (msg: InboundMessage) => InboundOutcome | Promise<InboundOutcome>;
  deps?: Partial<WhatsAppChannelDeps>;
}

export async function setup(opts: SetupOptions = {}) {
  const dir = tempDir('aw-wa-');
  const db = openDb(join(dir, 'agentwire.db'), [whatsappMigration]);
  if (opts.linked !== false) await seedLinkedCreds(db);
  const logs: Record<string, unknown>[] = [];
  const log = createLogger({
    level: 'debug',
    destination: { write: (s: string) => void logs.push(JSON.parse(s)) },
  });
  // The liveness watchdog is off unless a test turns it on: its timer would sit among the pending
  // timers other tests count and fire.
  const raw = (opts.config ?? {}) as { whatsapp?: Record<string, unknown> };
  const config = configSchema.parse({
    ...raw,
    whatsapp: { liveness: { quietMinutes: 0 }, ...raw.whatsapp },
  });
  const { makeSocket, sockets } = fakeSockets();
  const scheduler = new ManualScheduler();
  const states: ChannelState[] = [];
  const handled: InboundMessage[] = [];
  let inboxId = 0;
  const channel = createWhatsAppChannel({
    config,
    paths: { inboundMedia: join(dir, 'media') },
    store: storeOver(db).whatsapp,
    log,
    makeSocket,
    scheduler,
    typingTimers: scheduler,
    random: () => 0.5,
    sleep: async () => {},
    onState: (s) => states.push(s),
    ...opts.deps,
  });
  const handler = async (msg: InboundMessage): Promise<InboundOutcome> => {
    handled.push(msg);
    return opts.outcome ? opts.outcome(msg) : { type: 'stored', inboxId: ++inboxId };
  };
  return {
    dir,
    db,
    logs,
    channel,
    sockets,
    scheduler,
    states,
    handled,
    /** Starts the channel and opens its first socket. */
    async start(): Promise<FakeSocket> {
      await channel.start(handler);
      const s = sockets.at(-1)!;
      s.open();
      return s;
    },
    sock: (): FakeSocket => sockets.at(-1)!,
  };
}
