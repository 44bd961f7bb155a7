// The WhatsApp channel (Baileys) as the rest of agentwire sees it (src/channels/plugin.ts). Light on
// purpose: Baileys itself is imported by `create` only, when the channel is enabled.
import type { Logger } from '../../log.js';
import type { ChannelPlugin, ChatKind } from '../plugin.js';
import type { ChannelState } from '../types.js';
import { isE164 } from './jid.js';
import { linkedAccountOf } from './link-state.js';

// A chat id is an E.164 number (a person), or a JID: a group (`…@g.us`), a LID or phone JID, or a
// broadcast list / status / newsletter (which a job may never address).
const JID = /^[^@\s:]+@(g\.us|s\.whatsapp\.net|lid|broadcast|newsletter)$/i;

export function whatsappChatKind(chatId: string): ChatKind {
  const id = chatId.toLowerCase();
  if (id.endsWith('@g.us')) return 'group';
  // A post to a broadcast list, the status feed or a channel reaches everyone who follows it.
  if (id.endsWith('@broadcast') || id.endsWith('@newsletter')) return 'broadcast';
  return 'direct';
}

export const whatsappPlugin: ChannelPlugin = {
  name: 'whatsapp',
  displayName: 'WhatsApp',
  // An edit is a message with `edit: key`, a reaction one with `react: {text, key}`, a deletion for
  // everyone one with `delete: key` (Baileys).
  // WhatsApp bans accounts that look automated: a live status line is edited at most every 2 s.
  capabilities: { edit: true, editIntervalMs: 2000, react: true, delete: true },
  enabled: (c) => c.whatsapp.enabled,
  create: async (d) => {
    const { createWhatsAppChannel, renderTerminalQr } = await import('./index.js');
    return createWhatsAppChannel({
      config: d.config,
      paths: d.paths,
      store: d.store.whatsapp,
      log: d.log,
      onState: showLinkQr(d.log, renderTerminalQr),
      ...(d.single && { single: d.single }),
      ...(d.launcher && { launcher: d.launcher }),
    });
  },
  // Two sockets on one link kick each other off (close 440): one process holds the socket, and
  // since a send goes over that socket, it sends every WhatsApp chat's replies.
  single: (c) => c.whatsapp.enabled,
  sendsThroughSingle: true,
  isChatId: (id) => isE164(id) || JID.test(id),
  chatKind: whatsappChatKind,
  exampleChatId: '+15551234567',
  chatIdHelp: 'an E.164 number like +15551234567 (or a group JID)',
  textRules: (c) => ({ limit: c.whatsapp.chunkChars, fences: true }),
  // The linked account's own chat ("message yourself"): the one chat that is surely the owner's.
  // `connected` carries the account's E.164; before the first connection, the store's creds say.
  defaultTarget: ({ config, facts, state }) => {
    if (!config.whatsapp.enabled) return undefined;
    if (state?.type === 'connected' && state.account) return state.account;
    return linkedAccountOf(facts?.whatsappCreds);
  },
};

/**
 * While WhatsApp is not linked, the QR code to scan is drawn in the terminal when a person watches
 * it (the web console shows it too, for a relay running as a service).
 */
function showLinkQr(
  log: Logger,
  renderTerminalQr: (qr: string) => Promise<string>,
): (state: ChannelState) => void {
  let last: string | undefined;
  return (state) => {
    if (state.type !== 'connecting' || !state.qr || state.qr === last) return;
    last = state.qr;
    log.info(
      'WhatsApp is not linked: scan the QR code with WhatsApp > Linked devices (or open the web console)',
    );
    if (!process.stdout.isTTY) return;
    void renderTerminalQr(state.qr).then((qr) => process.stdout.write(`${qr}\n`));
  };
}
