// Sends one approved OutboundItem. While the socket is not open every send fails as retryable
// without touching Baileys, so the core's outbox delivers it exactly once after the reconnect.

import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import {
  type AnyMessageContent,
  generateMessageIDV2,
  isJidGroup,
  type WAMessageKey,
} from '@whiskeysockets/baileys';
import { chunkText } from '../../core/chunk.js';
import { NOT_CONNECTED, type OutboundItem, type SendResult } from '../../core/types.js';
import type { Logger } from '../../log.js';
import { linkText } from '../send-item.js';
import { whatsappVerbatim } from '../verbatim.js';
import type { ChatJids } from './chat-jids.js';
import { markdownToWhatsApp } from './format.js';
import type { GroupCache } from './group-cache.js';
import { contentForFile, failedNotice, oversizeNotice, sendError } from './outbound-content.js';
import type { Pacer } from './pacer.js';
import type { SentStore } from './sent-store.js';
import type { WaSocket } from './socket.js';

export interface OutboundDeps {
  socket: () => WaSocket | undefined;
  sent: SentStore;
  chats: ChatJids;
  groups: GroupCache;
  log: Logger;
  chunkChars: number;
  maxFileBytes: number;
  pacer: Pacer;
}

const NOT_OPEN: SendResult = {
  ok: false,
  error: 'WhatsApp is not connected',
  retryable: true,
  code: NOT_CONNECTED,
};

type ReadResult = { ok: true; data: Buffer } | { ok: false; tooLarge?: number; error: string };

/** Reads an approved file ourselves: no symlink at the last step, a regular file, capped by bytes read. */
export async function readCapped(path: string, maxBytes: number): Promise<ReadResult> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    const st = await handle.stat();
    if (!st.isFile()) return { ok: false, error: 'not a regular file' };
    if (st.size > maxBytes) return { ok: false, tooLarge: st.size, error: 'too large' };
    const buf = Buffer.alloc(Math.min(st.size, maxBytes) + 1);
    let total = 0;
    while (total < buf.length) {
      const { bytesRead } = await handle.read(buf, total, buf.length - total, total);
      if (bytesRead === 0) break;
      total += bytesRead;
    }
    // The file grew past the cap after the size check.
    if (total > maxBytes) return { ok: false, tooLarge: total, error: 'too large' };
    return { ok: true, data: buf.subarray(0, total) };
  } catch (err) {
    return { ok: false, error: (err as NodeJS.ErrnoException).code ?? (err as Error).message };
  } finally {
    await handle?.close();
  }
}

export class Outbound {
  constructor(private readonly deps: OutboundDeps) {}

  async send(chatId: string, item: OutboundItem): Promise<SendResult> {
    const sock = this.deps.socket();
    if (!sock) return NOT_OPEN;
    const jid = await this.deps.chats.resolve(chatId);
    if (!jid) return { ok: false, error: 'not a WhatsApp chat id', retryable: false, code: 'bad_chat' };
    if (isJidGroup(jid)) await this.warmGroup(sock, jid);
    switch (item.type) {
      case 'text':
        return this.sendText(
          sock,
          jid,
          item.code ? whatsappVerbatim(item.text) : markdownToWhatsApp(item.text),
        );
      case 'url':
        // Sent as a link: fetching agent-named URLs from the user's machine is not worth the risk.
        return this.sendText(sock, jid, linkText(item));
      case 'file':
        return this.sendFile(sock, jid, item);
      default: {
        const never: never = item;
        return { ok: false, error: `unknown item ${JSON.stringify(never)}`, retryable: false };
      }
    }
  }

  /** A new text for a message we sent: a message carrying `edit` with the original's key. */
  async edit(chatId: string, providerId: string, text: string): Promise<SendResult> {
    return this.change(chatId, providerId, (key) => ({
      text: markdownToWhatsApp(text),
      edit: key,
    }));
  }

  /** An emoji reaction on a message of the chat, ours or the person's: `react` with its key. */
  async react(chatId: string, providerId: string, emoji: string): Promise<SendResult> {
    return this.change(chatId, providerId, (key) => ({ react: { text: emoji, key } }));
  }

  /**
   * Deletes a message we sent, for everyone: a message carrying `delete` with its key. A revoke sent
   * again after a crash names a message already revoked, which changes nothing.
   */
  async delete(chatId: string, providerId: string): Promise<SendResult> {
    return this.change(chatId, providerId, (key) => ({ delete: key }));
  }

  private async change(
    chatId: string,
    providerId: string,
    content: (key: WAMessageKey) => AnyMessageContent,
  ): Promise<SendResult> {
    const sock = this.deps.socket();
    if (!sock) return NOT_OPEN;
    const jid = await this.deps.chats.resolve(chatId);
    if (!jid) return { ok: false, error: 'not a WhatsApp chat id', retryable: false, code: 'bad_chat' };
    // Whose the message is decides the key: ours are in the sent store. (In a group, a person's
    // message would also need its sender as `participant`, which the id alone does not carry.)
    const key: WAMessageKey = {
      remoteJid: jid,
      fromMe: await this.deps.sent.has(providerId),
      id: providerId,
    };
    return this.sendOne(sock, jid, content(key));
  }

  private async sendText(sock: WaSocket, jid: string, text: string): Promise<SendResult> {
    let last: SendResult = { ok: false, error: 'empty message', retryable: false, code: 'empty' };
    // The queue already cut the reply by these same rules (the one splitter); this only guards a text
    // that did not come through it.
    for (const part of chunkText(text, { limit: this.deps.chunkChars, fences: true })) {
      if (!part.trim()) continue;
      // linkPreview: null stops Baileys fetching URLs found in the text.
      last = await this.sendOne(sock, jid, { text: part, linkPreview: null });
      if (!last.ok) return last;
    }
    return last;
  }

  private async sendFile(
    sock: WaSocket,
    jid: string,
    item: Extract<OutboundItem, { type: 'file' }>,
  ): Promise<SendResult> {
    const read = await readCapped(item.path, this.deps.maxFileBytes);
    if (!read.ok) {
      this.deps.log.warn({ error: read.error }, 'outbound attachment not sent');
      const notice = read.tooLarge
        ? oversizeNotice(item.fileName, read.tooLarge, this.deps.maxFileBytes)
        : failedNotice(item.fileName);
      return this.sendOne(sock, jid, { text: notice, linkPreview: null });
    }
    const file = { data: read.data, mimeType: item.mimeType, fileName: item.fileName };
    const caption = item.caption ? markdownToWhatsApp(item.caption) : undefined;
    const { content, captionAfter } = contentForFile(caption ? { ...file, caption } : file);
    const sent = await this.sendOne(sock, jid, content);
    if (!sent.ok) {
      // A lost connection is retried by the outbox; anything else becomes a notice, never silence.
      if (sent.retryable && !this.deps.socket()) return sent;
      this.deps.log.warn({ error: sent.error }, 'outbound attachment upload failed');
      return this.sendOne(sock, jid, { text: failedNotice(item.fileName), linkPreview: null });
    }
    if (captionAfter) await this.sendOne(sock, jid, { text: captionAfter, linkPreview: null });
    return sent;
  }

  private async sendOne(sock: WaSocket, jid: string, content: AnyMessageContent): Promise<SendResult> {
    // The id is chosen and recorded before sending: Baileys emits our own message back as an
    // upsert on the next tick, possibly before sendMessage's promise resolves here.
    const id = generateMessageIDV2(sock.user?.id);
    await this.deps.sent.reserve(id, jid);
    try {
      const msg = await this.deps.pacer.run(() => sock.sendMessage(jid, content, { messageId: id }));
      await this.deps.sent.complete(id, msg?.message);
      return { ok: true, providerId: id };
    } catch (err) {
      return sendError(err);
    }
  }

  private async warmGroup(sock: WaSocket, jid: string): Promise<void> {
    if (this.deps.groups.get(jid)) return;
    try {
      this.deps.groups.set(await sock.groupMetadata(jid));
    } catch (err) {
      this.deps.log.debug({ err: (err as Error).message }, 'group metadata fetch failed');
    }
  }
}
