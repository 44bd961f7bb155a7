// SMS opt-out keywords. Twilio itself unsubscribes a sender whose SMS is exactly one of these words
// (and forwards the message to the webhook anyway): every later send to them fails with 21610 until
// they opt back in. So "STOP" is not a prompt: running the agent on it only produces a reply Twilio
// refuses. WhatsApp through Twilio has no keyword filtering; there these words are ordinary text.
// A Messaging Service with Advanced Opt-Out names the keyword type in `OptOutType`, also for custom
// keywords, so that wins when present. Pure; table-tested.
import type { AddressKind } from './address.js';

/** Twilio's default opt-out and opt-in keywords (help.twilio.com, "SMS STOP filtering"). */
const OPT_OUT = new Set(['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT', 'REVOKE', 'OPTOUT']);
// "YES" opts back in too, but it is also an everyday answer to the agent: it runs as usual (any stored
// message unblocks the chat), while these two say nothing else.
const OPT_IN = new Set(['START', 'UNSTOP']);

export type OptKeyword = 'opt_out' | 'opt_in' | undefined;

export function optKeyword(kind: AddressKind, body: string, optOutType?: string): OptKeyword {
  const type = optOutType?.trim().toUpperCase();
  if (type === 'STOP') return 'opt_out';
  if (type === 'START') return 'opt_in';
  if (kind !== 'sms' || type) return undefined;
  const word = body.trim().toUpperCase();
  if (OPT_OUT.has(word)) return 'opt_out';
  if (OPT_IN.has(word)) return 'opt_in';
  return undefined;
}
