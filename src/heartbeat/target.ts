// Where a heartbeat or schedule may speak. Only a configured chat key (or the linked WhatsApp
// self-chat), never "whoever wrote last": openclaw#24638 sent a system status dump to an outside
// contact that way. Heartbeats never go to a group; nothing goes to a WhatsApp broadcast list,
// status or channel, where a post would reach everyone who follows it.
import { type ChatKey, parseChatKey } from '../core/types.js';

export type TargetCheck = { ok: true; chat: ChatKey } | { ok: false; reason: TargetProblem; message: string };
export type TargetProblem = 'none' | 'invalid' | 'group' | 'broadcast';

/** WhatsApp group JIDs end in @g.us. */
export function isGroupChatId(chatId: string): boolean {
  return chatId.toLowerCase().endsWith('@g.us');
}

function isBroadcastChatId(chatId: string): boolean {
  const id = chatId.toLowerCase();
  return id.endsWith('@broadcast') || id.endsWith('@newsletter');
}

/** A chat key a schedule may use: well formed and not a broadcast. Groups are allowed here. */
export function checkScheduleTarget(raw: string | undefined): TargetCheck {
  if (raw === undefined || raw.trim() === '') return { ok: false, reason: 'none', message: 'no target chat' };
  const parsed = parseChatKey(raw.trim());
  if (!parsed)
    return {
      ok: false,
      reason: 'invalid',
      message: `"${raw}" is not a chat key like "whatsapp:+15551234567" (channel whatsapp, twilio or console)`,
    };
  if (isBroadcastChatId(parsed.chatId))
    return { ok: false, reason: 'broadcast', message: 'a broadcast list, status or channel is not a chat' };
  return { ok: true, chat: `${parsed.channel}:${parsed.chatId}` };
}

/** A chat key a heartbeat may use: as for schedules, and never a group. */
export function checkHeartbeatTarget(raw: string | undefined): TargetCheck {
  const c = checkScheduleTarget(raw);
  if (!c.ok) return c;
  if (isGroupChatId(c.chat))
    return { ok: false, reason: 'group', message: 'a heartbeat is never sent to a group' };
  return c;
}
