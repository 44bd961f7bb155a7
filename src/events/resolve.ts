// The chat an event names: a name from `targets`, or a chat key the channels accept (the same check
// a schedule's target gets), of a channel this relay runs, since no other process would run it.
import type { ChannelName, ChatKey } from '../core/types.js';
import { parseChatKey } from '../core/types.js';
import { checkScheduleTarget } from '../heartbeat/target.js';
import type { ChatResolution } from './event-file.js';

export function chatResolver(
  targets: Readonly<Record<string, string>>,
  running: (channel: ChannelName) => boolean,
): (ref: string) => ChatResolution {
  return (ref) => {
    const named = Object.hasOwn(targets, ref) ? targets[ref] : undefined;
    const t = checkScheduleTarget(named ?? ref);
    if (!t.ok)
      return {
        ok: false,
        error: named === undefined && !ref.includes(':') ? `"${ref}" is not a name in targets` : t.message,
      };
    const channel = (parseChatKey(t.chat) as { channel: ChannelName }).channel;
    if (!running(channel)) return { ok: false, error: `the ${channel} channel is not running in this relay` };
    return { ok: true, chat: t.chat as ChatKey };
  };
}
