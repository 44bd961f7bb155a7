// A stored inbound message as callers see it, whatever the engine. Ids of one chat come in arrival
// order (the store contract): the busy policy and the prompt take them in id order.
import type { ChatKey, InboundMedia, RemoteMedia } from '../../core/types.js';

export type InboxStatus = 'pending' | 'running' | 'done' | 'failed' | 'dropped';

export interface InboxRow {
  id: number;
  chat: ChatKey;
  kind: 'message' | 'command';
  messageId: string;
  senderId: string;
  senderName?: string;
  text: string;
  media: InboundMedia[];
  /** Attachments not fetched yet: the channel downloads them before the run. */
  remoteMedia?: RemoteMedia[];
  context?: string;
  isGroup: boolean;
  sentAt: number;
  receivedAt: number;
  status: InboxStatus;
  tries: number;
  startedAt?: number;
  finishedAt?: number;
  note?: string;
  /** A `running` row's owner process and lease epoch, when it was claimed under a lease. */
  owner?: string;
  leaseEpoch?: number;
}
