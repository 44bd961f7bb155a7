// The store as the rest of the relay sees it, whatever the engine: one object of ports, each a set of
// operations named for what they mean. The contract every engine keeps is written in
// store/queue-ops.ts and docs/architecture.md ("The store contract"): each operation is one
// serialisable transaction returning a Promise that may settle at any later turn; a callback handed
// to one is pure and may run more than once; failures reject with a StoreError (store/errors.ts).
// This file, store/errors.ts, store/queue-ops.ts and store/contract/ name no engine.

import type { OutboxRow } from './contract/outbox.js';
import type { OwnershipStore } from './ownership.js';
import type { QueueStore } from './queue-ops.js';
import type { IncidentStore } from './sqlite/alert-incidents.js';
import type { ChannelStateStore } from './sqlite/channel-state.js';
import type { EventStore } from './sqlite/events.js';
import type { InteractionStore } from './sqlite/interactions.js';
import type { JobStateStore } from './sqlite/job-states.js';
import type { MediaLinkStore } from './sqlite/media-links.js';
import type { RetentionResult } from './sqlite/retention.js';
import type { StatusReader } from './sqlite/status-read.js';
import type { TaskStore } from './sqlite/tasks.js';
import type { TwilioSendStore } from './sqlite/twilio-sends.js';
import type { WhatsAppAuthStore } from './sqlite/whatsapp-auth.js';
import type { WhatsAppChatStore, WhatsAppSentStore } from './sqlite/whatsapp-messages.js';

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
