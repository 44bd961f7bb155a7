// The store as the rest of the relay sees it, whatever the engine: one object of ports, each a set of
// operations named for what they mean. The contract every engine keeps is written in
// store/queue-ops.ts and docs/architecture.md ("The store contract"): each operation is one
// serialisable transaction returning a Promise that may settle at any later turn; a callback handed
// to one is pure and may run more than once; failures reject with a StoreError (store/errors.ts).
// Every file at the top of src/store/ and in store/contract/ names no engine (rule
// contract-imports-no-engine); the SQLite engine is store/sqlite/.

import type { IncidentStore } from './alert-incidents.js';
import type { ChannelStateStore } from './channel-state.js';
import type { OutboxRow } from './contract/outbox.js';
import type { EventStore } from './events.js';
import type { InteractionStore } from './interactions.js';
import type { JobStateStore } from './job-states.js';
import type { MediaLinkStore } from './media-links.js';
import type { OwnershipStore } from './ownership.js';
import type { QueueStore } from './queue-ops.js';
import type { RetentionResult } from './retention.js';
import type { StatusReader } from './status-read.js';
import type { TaskStore } from './tasks.js';
import type { TwilioSendStore } from './twilio-sends.js';
import type { WhatsAppAuthStore } from './whatsapp-auth.js';
import type { WhatsAppChatStore, WhatsAppSentStore } from './whatsapp-messages.js';

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
  /** Events from outside (files, hooks, `agentwire trigger`) waiting to run (docs/events.md). */
  readonly events: EventStore;
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
