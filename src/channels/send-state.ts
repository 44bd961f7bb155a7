// What `agentwire send` tells the sender when the relay took the message but its channel cannot
// deliver it now. Saying "handed to the running relay" for a WhatsApp that needs a relink left the
// sender believing it went out. The message stays in the outbox either way and
// goes out once the channel can take it (or at the next start).

import type { ChannelName } from '../core/types.js';
import { CONSOLE, channelPlugin } from './registry.js';
import type { ChannelState } from './types.js';

export interface Queued {
  /** The channel's state when the message was queued (`relink_required`, `connecting`, …). */
  state: string;
  /** One short sentence: why it waits, and what gets it moving. */
  reason: string;
}

/** Undefined when the channel can send now; otherwise why the message waits in the outbox. */
export function queuedBecause(channel: ChannelName, s: ChannelState): Queued | undefined {
  const name = channelPlugin(channel)?.displayName ?? (channel === CONSOLE ? 'The console' : channel);
  const reason = ((): string | undefined => {
    switch (s.type) {
      case 'connected':
        return undefined;
      case 'relink_required':
        return `${name} needs to be linked again (${s.reason}): run \`agentwire login\` or open the web console`;
      case 'connecting':
        return s.qr
          ? `${name} is waiting for its QR code to be scanned (web console or \`agentwire login\`)`
          : `${name} is still connecting`;
      case 'degraded':
        return `${name} cannot reach its servers right now (${s.lastError}); it keeps retrying`;
      case 'elsewhere':
        // Only a channel whose sends need that process waits for it (WhatsApp's socket).
        return channelPlugin(channel)?.sendsThroughSingle
          ? `${name} runs in another relay (${s.holder}); that relay sends it`
          : undefined;
      case 'stopped':
      case 'disabled':
        return `${name} is not running in this relay`;
      default:
        // A state added later: say what it is rather than nothing.
        return `${name} is ${String((s as { type: string }).type).replace(/_/g, ' ')}`;
    }
  })();
  return reason === undefined ? undefined : { state: s.type, reason };
}
