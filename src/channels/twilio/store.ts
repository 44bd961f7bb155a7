// What the Twilio channel keeps in the store (store/twilio-sends.ts): delivery status per provider
// message, recipients we must not keep sending to (unsubscribed, outside the WhatsApp window), the
// refusal rate limit, and the poll cursor. This side holds the channel's rules: the clock, and that
// a status only moves forward (status.ts).
import type { TwilioSendStore } from '../../store/twilio-sends.js';
import { type DeliveryStatus, nextStatus } from './status.js';

export interface Delivery {
  sid: string;
  chatId: string;
  status: DeliveryStatus;
  errorCode?: string;
  updatedAt: number;
}

export interface TwilioStore {
  recordSent(sid: string, chatId: string, status: string): Promise<void>;
  /** Applies a status callback monotonically; returns the status now stored, or undefined if unknown sid. */
  recordStatus(sid: string, status: string, errorCode?: string): Promise<DeliveryStatus | undefined>;
  delivery(sid: string): Promise<Delivery | undefined>;
  block(chatId: string, code: string): Promise<void>;
  blocked(chatId: string): Promise<string | undefined>;
  unblock(chatId: string): Promise<void>;
  /** True (and remembered) when this sender has not been refused in the last day. */
  claimRefusal(sender: string): Promise<boolean>;
  pollSeen(sid: string): Promise<boolean>;
  markPollSeen(sid: string): Promise<void>;
  getState(key: string): Promise<string | undefined>;
  setState(key: string, value: string): Promise<void>;
  prune(): Promise<void>;
}

export function createTwilioStore(sends: TwilioSendStore, now: () => number = Date.now): TwilioStore {
  return {
    recordSent: (sid, chatId, status) => sends.saveTwilioSend(sid, chatId, status, now()),
    recordStatus: async (sid, status, errorCode) =>
      (await sends.recordStatus(sid, status, errorCode, now(), nextStatus)) as DeliveryStatus | undefined,
    delivery: async (sid) => {
      const d = await sends.delivery(sid);
      return d && { ...d, status: d.status as DeliveryStatus };
    },
    block: (chatId, code) => sends.block(chatId, code, now()),
    blocked: (chatId) => sends.blocked(chatId),
    unblock: (chatId) => sends.unblock(chatId),
    claimRefusal: (sender) => sends.claimRefusal(sender, now()),
    pollSeen: (sid) => sends.pollSeen(sid),
    markPollSeen: async (sid) => {
      await sends.markPollSeen(sid, now());
    },
    getState: (key) => sends.getState(key),
    setState: (key, value) => sends.setState(key, value),
    prune: () => sends.prune(now()),
  };
}
