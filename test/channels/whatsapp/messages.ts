// Inbound messages built from Baileys' own protobuf types, the way its decoder hands them over
// (the v7 `remoteJidAlt` / `participantAlt` fields are set on the key after decoding, as Baileys does).
import { proto, type WAMessage } from '@whiskeysockets/baileys';

let counter = 0;

export interface MessageOpts {
  id?: string;
  chat: string;
  fromMe?: boolean;
  participant?: string;
  remoteJidAlt?: string;
  participantAlt?: string;
  /** Seconds since the epoch. */
  ts?: number;
  pushName?: string;
}

export function waMessage(opts: MessageOpts, message: proto.IMessage | null): WAMessage {
  const msg = proto.WebMessageInfo.fromObject({
    key: {
      remoteJid: opts.chat,
      fromMe: opts.fromMe ?? false,
      id: opts.id ?? `3EB0${String(++counter).padStart(16, '0')}`,
      ...(opts.participant ? { participant: opts.participant } : {}),
    },
    ...(message ? { message: proto.Message.fromObject(message) } : {}),
    messageTimestamp: opts.ts ?? Math.floor(Date.now() / 1000),
    ...(opts.pushName ? { pushName: opts.pushName } : {}),
  }) as WAMessage;
  if (opts.remoteJidAlt) msg.key.remoteJidAlt = opts.remoteJidAlt;
  if (opts.participantAlt) msg.key.participantAlt = opts.participantAlt;
  return msg;
}

export const text = (opts: MessageOpts, body: string): WAMessage => waMessage(opts, { conversation: body });

export function extended(
  opts: MessageOpts,
  body: string,
  ctx: { mentionedJid?: string[]; stanzaId?: string; participant?: string },
): WAMessage {
  return waMessage(opts, { extendedTextMessage: { text: body, contextInfo: ctx } });
}
