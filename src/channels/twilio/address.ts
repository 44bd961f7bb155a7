// Twilio addresses: `+15551234567` for SMS/MMS, `whatsapp:+15551234567` for WhatsApp through Twilio.
// The chat id keeps the prefix (a reply must go back the same way); the allow-list compares the bare
// number. Pure functions, table-tested.

const WHATSAPP = 'whatsapp:';
const E164 = /^\+[1-9]\d{6,14}$/;

export type AddressKind = 'sms' | 'whatsapp';

export interface Sender {
  /** Exactly what Twilio sent in `From`: the chat id, used to reply. */
  chatId: string;
  /** The number without any `whatsapp:` prefix (E.164 when Twilio sent one). */
  senderId: string;
  kind: AddressKind;
}

export function parseSender(from: string): Sender {
  const trimmed = from.trim();
  const isWa = trimmed.toLowerCase().startsWith(WHATSAPP);
  const bare = isWa ? trimmed.slice(WHATSAPP.length).trim() : trimmed;
  // WhatsApp senders occasionally arrive without the `+` (as in `WaId`); E.164 always has it.
  const senderId = /^[1-9]\d{6,14}$/.test(bare) ? `+${bare}` : bare;
  return { chatId: isWa ? `${WHATSAPP}${senderId}` : senderId, senderId, kind: isWa ? 'whatsapp' : 'sms' };
}

export const isE164 = (s: string): boolean => E164.test(s);

/** `"*"` (alone or inside the list) allows anyone; otherwise only listed E.164 numbers. */
export function isAllowed(allowFrom: '*' | readonly string[], senderId: string): boolean {
  if (allowFrom === '*' || allowFrom.includes('*')) return true;
  return isE164(senderId) && allowFrom.includes(senderId);
}

/** A chat id we are willing to send to: an E.164 number, optionally behind `whatsapp:`. */
export function parseRecipient(chatId: string): { to: string; kind: AddressKind } | undefined {
  const isWa = chatId.startsWith(WHATSAPP);
  const bare = isWa ? chatId.slice(WHATSAPP.length) : chatId;
  if (!isE164(bare)) return undefined;
  return { to: chatId, kind: isWa ? 'whatsapp' : 'sms' };
}

/**
 * The `from` to use for a recipient: the configured number with the same prefix as the recipient, so
 * one configured number serves SMS and WhatsApp chats. A messaging service picks its own sender.
 */
export function senderFor(
  kind: AddressKind,
  cfg: { from?: string; messagingServiceSid?: string },
): { from: string } | { messagingServiceSid: string } | undefined {
  if (cfg.messagingServiceSid) return { messagingServiceSid: cfg.messagingServiceSid };
  if (!cfg.from) return undefined;
  const bare = cfg.from.toLowerCase().startsWith(WHATSAPP) ? cfg.from.slice(WHATSAPP.length) : cfg.from;
  return { from: kind === 'whatsapp' ? `${WHATSAPP}${bare}` : bare };
}

/** Same number, either channel: used to match `To` of polled messages against our sender. */
export const bareNumber = (address: string): string => parseSender(address).senderId;
