// The method registry behind the control socket. Commands that talk to a running relay (`send`,
// `status`, `heartbeat`…) register a handler here; params are validated by each handler (zod), and
// a handler's thrown error becomes the response's short error sentence.
import { z } from 'zod';
import { checkChatKey } from '../channels/registry.js';
import { type Queued, queuedBecause } from '../channels/send-state.js';
import type { Channel, ChannelState } from '../channels/types.js';
import { CHANNEL_NAME, type ChannelName, chatKey } from '../core/types.js';
import type { Queue, QueueStatus } from '../queue/queue.js';
import { VERSION } from '../version.js';
import { type PartState, type SendOutcome, waitForOutcome } from './send-outcome.js';

export type MethodHandler = (params: unknown) => Promise<unknown>;

/** A handler's error that is fit to show the caller as is. */
export class MethodError extends Error {}

export class MethodRegistry {
  private readonly methods = new Map<string, MethodHandler>();

  register(name: string, handler: MethodHandler): void {
    if (this.methods.has(name)) throw new Error(`control method ${name} registered twice`);
    this.methods.set(name, handler);
  }

  names(): string[] {
    return [...this.methods.keys()].sort();
  }

  get(name: string): MethodHandler | undefined {
    return this.methods.get(name);
  }
}

/**
 * The `send` method's answer: `queued` when the channel cannot deliver now (the outbox keeps it);
 * otherwise `outcome`, what the first tries gave within the wait (absent from relays before it).
 */
export interface SendAnswer {
  key: string;
  queued?: Queued;
  outcome?: SendOutcome;
}

/** How long `send` waits for its message's first delivery outcome by default, and at most. */
export const SEND_WAIT_MS = 5_000;
const SEND_WAIT_MAX_MS = 30_000;

export interface RelayStatus {
  pid: number;
  startedAt: number;
  /** The agentwire version this relay runs (absent from relays before 0.1.0's `--version`). */
  version?: string;
  channels: Partial<Record<ChannelName, ChannelState>>;
  queue: QueueStatus;
}

const sendParams = z
  .object({
    channel: z.string().regex(CHANNEL_NAME, 'a channel name'),
    to: z.string().min(1).max(200),
    text: z.string().max(100_000).default(''),
    media: z.array(z.string().max(4096)).max(20).default([]),
    /** Media are files the owner named (absolute real paths): their folders are allowed roots. */
    ownerFiles: z.boolean().default(false),
    /** Idempotency key: the same key is delivered once, however often it is sent. */
    key: z.string().min(1).max(200).optional(),
    /** How long to wait for the delivery outcome before answering `pending`. */
    waitMs: z.number().int().min(0).max(SEND_WAIT_MAX_MS).default(SEND_WAIT_MS),
  })
  .strict()
  .refine((p) => p.text.trim() !== '' || p.media.length > 0, { message: 'text or media is required' });

/** `status` and `send`, the methods every relay has. */
export function registerCoreMethods(
  registry: MethodRegistry,
  deps: {
    queue: Queue;
    channels: ReadonlyMap<ChannelName, Channel>;
    startedAt: number;
    newKey: () => string;
    /** The stored parts (outbox rows) of a delivery key: what `send` waits on. */
    parts: (key: string) => Promise<readonly PartState[]>;
  },
): void {
  registry.register('status', async (): Promise<RelayStatus> => {
    const channels: RelayStatus['channels'] = {};
    for (const [name, ch] of deps.channels) channels[name] = ch.status();
    return {
      pid: process.pid,
      startedAt: deps.startedAt,
      version: VERSION,
      channels,
      queue: await deps.queue.status(),
    };
  });
  registry.register('send', async (raw): Promise<SendAnswer> => {
    const parsed = sendParams.safeParse(raw);
    if (!parsed.success) {
      const i = parsed.error.issues[0];
      throw new MethodError(`invalid params: ${i?.path.join('.') || '(params)'}: ${i?.message}`);
    }
    const p = parsed.data;
    // Which channels exist and what their chat ids look like is the registry's to say.
    const target = checkChatKey(chatKey(p.channel, p.to));
    if (!target.ok) throw new MethodError(`invalid params: ${target.error}`);
    if (!deps.channels.has(p.channel))
      throw new MethodError(`the ${p.channel} channel is not running in this relay`);
    const key = p.key ?? deps.newKey();
    await deps.queue.deliver(chatKey(p.channel, p.to), `send:${key}`, p.text, p.media, {
      ownerFiles: p.ownerFiles,
    });
    const channel = deps.channels.get(p.channel);
    const queued = channel ? queuedBecause(p.channel, channel.status()) : undefined;
    if (queued) return { key, queued };
    const outcome = await waitForOutcome(() => deps.parts(`sys:send:${key}`), p.waitMs);
    return { key, outcome };
  });
}
