// The console channel: the terminal as one chat, `console:local`. Each input line is an inbound
// message; replies, attachments and notices are printed. It goes through the same pipeline as
// WhatsApp and Twilio (inbox, lanes, outbox), which is what makes it a faithful way to try the relay.
import { randomUUID } from 'node:crypto';
import { createInterface, type Interface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { InboundMessage, OutboundItem, SendResult } from '../../core/types.js';
import type { Channel, ChannelState, InboundHandler } from '../types.js';

export const CONSOLE_CHAT_ID = 'local';

export interface ConsoleOptions {
  input: Readable;
  output: Writable;
  /** Where notices about the input itself go (not stored, not replies). */
  errors: Writable;
  /** Called once input ended (Ctrl-D / EOF), after every line read was handed to the core. */
  onEnd: () => void;
  /** Ctrl-C at a terminal (readline catches it before the process does). */
  onInterrupt?: () => void;
}

function size(bytes: number): string {
  return bytes < 1024 * 1024
    ? `${Math.max(1, Math.round(bytes / 1024))} KB`
    : `${(bytes / 1048576).toFixed(1)} MB`;
}

/** How an outbound item looks in a terminal. Pure. */
export function renderItem(item: OutboundItem): string {
  switch (item.type) {
    case 'text':
      return item.text;
    case 'file':
      return `[file] ${item.path} (${item.mimeType}, ${size(item.sizeBytes)})${item.caption ? ` ${item.caption}` : ''}`;
    case 'url':
      return `[link] ${item.url}${item.caption ? ` ${item.caption}` : ''}`;
  }
}

export class ConsoleChannel implements Channel {
  readonly name = 'console';
  /** A terminal has no message size limit; this only bounds one printed block. */
  readonly textLimit = 16_000;
  private rl: Interface | undefined;
  private state: ChannelState = { type: 'stopped' };
  /** Unique across runs of the process, so dedupe never mistakes a new line for an old one. */
  private readonly boot = randomUUID().slice(0, 8);
  private seq = 0;

  constructor(private readonly opts: ConsoleOptions) {}

  async start(onInbound: InboundHandler): Promise<void> {
    const rl = createInterface({ input: this.opts.input, terminal: false });
    this.rl = rl;
    this.state = { type: 'connected', since: Date.now(), account: 'console' };
    // Lines are handed over one at a time, in order; EOF waits until the last one is stored.
    let chain = Promise.resolve();
    rl.on('line', (line) => {
      chain = chain.then(() => this.inbound(line, onInbound));
    });
    rl.on('close', () => {
      void chain.then(() => this.opts.onEnd());
    });
    if (this.opts.onInterrupt) rl.on('SIGINT', this.opts.onInterrupt);
  }

  private async inbound(line: string, onInbound: InboundHandler): Promise<void> {
    if (!line.trim()) return;
    const msg: InboundMessage = {
      channel: 'console',
      chatId: CONSOLE_CHAT_ID,
      senderId: 'local',
      messageId: `${this.boot}-${++this.seq}`,
      text: line,
      media: [],
      isGroup: false,
      mentioned: true,
      at: Date.now(),
    };
    const out = await onInbound(msg);
    if (out.type === 'rejected') this.opts.errors.write(`(not sent: ${out.reason})\n`);
    if (out.type === 'failed') this.opts.errors.write(`(not stored: ${out.error})\n`);
  }

  async stop(): Promise<void> {
    this.rl?.close();
    this.state = { type: 'stopped' };
  }

  async send(_chatId: string, item: OutboundItem): Promise<SendResult> {
    const text = `${renderItem(item)}\n`;
    const ok = this.opts.output.write(text);
    if (!ok) await new Promise((r) => this.opts.output.once('drain', r));
    return { ok: true };
  }

  status(): ChannelState {
    return this.state;
  }
}
