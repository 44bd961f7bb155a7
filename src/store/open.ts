// The store as the rest of the relay sees it: one object of ports, each a set of operations named
// for what they mean, each one transaction and each returning a Promise (node:sqlite does the work
// synchronously and returns a settled promise; an engine with an asynchronous client can implement
// the same interfaces). Built once by a composition root (relay.ts, a CLI command) and handed down;
// no database handle, statement or SQLite error code leaves src/store/.
import { type IncidentStore, incidentStore } from './alert-incidents.js';
import { type ChannelStateStore, channelStateStore } from './channel-state.js';
import { type Db, openDb } from './db.js';
import { guarded } from './errors.js';
import { type InteractionStore, interactionStore } from './interactions.js';
import { type JobStateStore, jobStateStore } from './job-states.js';
import { type MediaLinkStore, mediaLinkStore } from './media-links.js';
import { type OutboxRow, rowsForKey, unsentFilePaths } from './outbox.js';
import type { OwnershipStore } from './ownership.js';
import { ownershipStore } from './ownership-sqlite.js';
import type { QueueStore } from './queue-ops.js';
import { sqliteQueueStore } from './queue-sqlite.js';
import { pruneStore, type RetentionResult } from './retention.js';
import { ALL_MIGRATIONS } from './schema.js';
import { type StatusReader, statusReader } from './status-read.js';
import { type TaskStore, taskStore } from './tasks.js';
import { type TwilioSendStore, twilioSendStore } from './twilio-sends.js';
import { type WhatsAppAuthStore, whatsappAuthStore } from './whatsapp-auth.js';
import {
  type WhatsAppChatStore,
  type WhatsAppSentStore,
  whatsappChatStore,
  whatsappSentStore,
} from './whatsapp-messages.js';

/** The WhatsApp channel's state: credentials and keys, what it sent, the JID per chat. */
export interface WhatsAppStore {
  auth: WhatsAppAuthStore;
  sent: WhatsAppSentStore;
  chats: WhatsAppChatStore;
}

export interface Store {
  readonly whatsapp: WhatsAppStore;
  readonly twilio: TwilioSendStore;
  /** Staged outbound files served by URL (Twilio media). */
  readonly mediaLinks: MediaLinkStore;
  /** Open alert incidents (ops/alert). */
  readonly incidents: IncidentStore;
  /** Heartbeat and schedule state. */
  readonly jobStates: JobStateStore;
  /** Tasks agents scheduled with the `schedule_task` tool (docs/tools.md). */
  readonly tasks: TaskStore;
  /** Questions and approvals runs wait on, and the chats' allowances (docs/tools.md). */
  readonly interactions: InteractionStore;
  readonly status: StatusReader;
  /** Files named by replies not yet sent (the staged-media sweep keeps these). */
  unsentFiles(): Promise<string[]>;
  /** The reply chunks stored under one outbox key, in order (`agentwire send` reports on them). */
  repliesFor(key: string): Promise<Pick<OutboxRow, 'status' | 'error'>[]>;
  /** Scrubs message text older than `messageDays` (retention.messageDays). */
  pruneOldMessages(now: number, messageDays: number): Promise<RetentionResult>;
  /** The queue's operations (store/queue-ops.ts). */
  readonly queue: QueueStore;
  /** Processes, chat and leader leases, notifications (store/ownership.ts). */
  readonly ownership: OwnershipStore;
  /** One channel's own keys in the generic channel-state table (offsets, dedupe ids, settings). */
  channelState(channel: string): ChannelStateStore;
  close(): Promise<void>;
}

/**
 * The ports over an already open database (tests, and `openStore`). Every operation rejects with a
 * StoreError (store/errors.ts): a full disk is `{reason: 'full', retryable: true}`, never a code.
 */
export function storeOver(db: Db): Store {
  return {
    whatsapp: {
      auth: guarded(whatsappAuthStore(db)),
      sent: guarded(whatsappSentStore(db)),
      chats: guarded(whatsappChatStore(db)),
    },
    twilio: guarded(twilioSendStore(db)),
    mediaLinks: guarded(mediaLinkStore(db)),
    incidents: guarded(incidentStore(db)),
    jobStates: guarded(jobStateStore(db)),
    tasks: guarded(taskStore(db)),
    interactions: guarded(interactionStore(db)),
    status: guarded(statusReader(db)),
    ...guarded({
      unsentFiles: async () => unsentFilePaths(db),
      repliesFor: async (key: string) =>
        rowsForKey(db, key).map((r) => ({ status: r.status, error: r.error })),
      pruneOldMessages: async (now: number, days: number) => pruneStore(db, now, days),
      close: async () => db.close(),
    }),
    queue: sqliteQueueStore(db),
    ownership: guarded(ownershipStore(db, SCHEMA_VERSION)),
    channelState: (channel: string) => guarded(channelStateStore(db, channel)),
  };
}

/** The schema this code knows, as one number (every module's steps): the process registry shows it. */
const SCHEMA_VERSION = ALL_MIGRATIONS.reduce((n, m) => n + m.steps.length, 0);

/** Opens (creating with mode 0600, and migrating) the store file; `:memory:` for a throwaway one. */
export async function openStore(file: string): Promise<Store> {
  return storeOver(openDb(file, ALL_MIGRATIONS));
}
