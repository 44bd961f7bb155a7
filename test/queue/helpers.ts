// Fakes at the edges of the queue: a recording channel and a scriptable agent. The store is real.
import type { AgentKind, AgentRequest, AgentResult } from '../../src/agents/types.js';
import type { Channel, ChannelState, InboundOutcome } from '../../src/channels/types.js';
import { configSchema } from '../../src/config/schema.js';
import type { ChannelName, InboundMessage, OutboundItem, SendResult } from '../../src/core/types.js';
import { createLogger } from '../../src/log.js';
import type { AgentResolver, MediaPolicy, ResolvedAgent, WarmPort } from '../../src/queue/ports.js';
import { Queue, type QueueConfig } from '../../src/queue/queue.js';
import type { QueueOptions } from '../../src/queue/queue-types.js';
import { sqliteQueueStore } from '../../src/store/sqlite/queue-sqlite.js';
import { inbound, tempDb } from '../store/helpers.js';

/** Resolves the waiters whose count was reached; returns the rest. */
function settle(waiters: { n: number; resolve: () => void }[], count: number) {
  for (const w of waiters) if (count >= w.n) w.resolve();
  return waiters.filter((w) => count < w.n);
}

export class FakeChannel implements Channel {
  readonly sent: { chatId: string; item: OutboundItem }[] = [];
  readonly typingCalls: boolean[] = [];
  /** Results to return for the next sends, in order; afterwards every send succeeds. */
  failNext: SendResult[] = [];
  private waiters: { n: number; resolve: () => void }[] = [];
  constructor(
    readonly name: ChannelName = 'console',
    readonly textLimit = 4000,
  ) {}
  async start(): Promise<void> {}
  async stop(): Promise<void> {}
  status(): ChannelState {
    return { type: 'connected', since: 0 };
  }
  async typing(_chatId: string, on: boolean): Promise<void> {
    this.typingCalls.push(on);
  }
  async send(chatId: string, item: OutboundItem): Promise<SendResult> {
    const fail = this.failNext.shift();
    if (fail) return fail;
    this.sent.push({ chatId, item });
    this.waiters = settle(this.waiters, this.sent.length);
    return { ok: true, providerId: `p${this.sent.length}` };
  }
  texts(chatId?: string): string[] {
    return this.sent
      .filter((s) => chatId === undefined || s.chatId === chatId)
      .map((s) => (s.item.type === 'text' ? s.item.text : `[${s.item.type}]`));
  }
  /** Resolves once `n` items were sent in total. */
  untilSent(n: number): Promise<void> {
    if (this.sent.length >= n) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ n, resolve }));
  }
}

export interface Call {
  kind: AgentKind;
  request: AgentRequest;
  /** Settles the run with this result (ignored once settled). */
  finish: (r: AgentResult) => void;
}

export const ok = (text: string, extra: Partial<Extract<AgentResult, { type: 'ok' }>> = {}): AgentResult => ({
  type: 'ok',
  text,
  progress: [],
  media: [],
  truncated: false,
  durationMs: 1,
  ...extra,
});

export const fail = (
  kind: Extract<AgentResult, { type: 'error' }>['kind'],
  message = '',
  extra: Partial<Extract<AgentResult, { type: 'error' }>> = {},
): AgentResult => ({ type: 'error', kind, message, durationMs: 1, ...extra });

/**
 * A scriptable agent. With `auto`, each run settles with `auto(request)` at once; otherwise the run
 * waits until the test calls `finish`. An abort always settles it as `aborted`, like the real runner.
 */
export class FakeAgent {
  readonly calls: Call[] = [];
  readonly pending: Call[] = [];
  maxConcurrent = 0;
  private live = 0;
  private waiters: { n: number; resolve: () => void }[] = [];
  constructor(public auto?: (req: AgentRequest, n: number) => AgentResult | Promise<AgentResult>) {}

  resolver(
    opts: { levels?: string[]; unavailable?: AgentKind[]; sessionGone?: (id: string) => boolean } = {},
  ): AgentResolver {
    return (kind) => {
      if (opts.unavailable?.includes(kind)) return { ok: false, error: `${kind} is not installed.` };
      const agent: ResolvedAgent = {
        kind,
        choosesSessionId: kind === 'codex' ? 'cli' : 'relay-uuid',
        thinkingLevels: opts.levels ?? ['low', 'high'],
        base: { command: [kind], cwd: '/work/dir', env: {}, timeoutMs: 60_000, stateDir: '/state' },
        run: (request) => this.run(kind, request),
        ...(opts.sessionGone ? { sessionGone: opts.sessionGone } : {}),
      };
      return { ok: true, agent };
    };
  }

  private run(kind: AgentKind, request: AgentRequest): Promise<AgentResult> {
    this.live++;
    this.maxConcurrent = Math.max(this.maxConcurrent, this.live);
    return new Promise<AgentResult>((resolve) => {
      let settled = false;
      const call: Call = {
        kind,
        request,
        finish: (r) => {
          if (settled) return;
          settled = true;
          this.live--;
          this.pending.splice(this.pending.indexOf(call), 1);
          resolve(r);
        },
      };
      this.calls.push(call);
      this.pending.push(call);
      request.signal?.addEventListener('abort', () => call.finish(fail('aborted', 'stopped')), {
        once: true,
      });
      this.waiters = settle(this.waiters, this.calls.length);
      if (this.auto) {
        const n = this.calls.length;
        void Promise.resolve(this.auto(request, n)).then((r) => call.finish(r));
      }
    });
  }

  /** Resolves once `n` runs have started. */
  untilCalls(n: number): Promise<void> {
    if (this.calls.length >= n) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ n, resolve }));
  }

  prompts(): string[] {
    return this.calls.map((c) => c.request.prompt);
  }
}

export const approveAll: MediaPolicy = async (refs) =>
  refs.map((ref) =>
    ref.startsWith('https://')
      ? { type: 'approved', item: { type: 'url', url: ref } }
      : ref.startsWith('./')
        ? {
            type: 'approved',
            item: {
              type: 'file',
              path: `/work/dir/${ref.slice(2)}`,
              mimeType: 'image/png',
              fileName: ref.slice(2),
              sizeBytes: 3,
            },
          }
        : { type: 'refused', ref, reason: 'outside the allowed folders' },
  );

export function memoryLog() {
  const lines: Record<string, unknown>[] = [];
  const log = createLogger({
    level: 'debug',
    destination: { write: (s: string) => void lines.push(JSON.parse(s)) },
  });
  return { log, lines };
}

export interface Harness {
  queue: Queue;
  agent: FakeAgent;
  channel: FakeChannel;
  store: ReturnType<typeof tempDb>;
  lines: Record<string, unknown>[];
  clock: { now: number };
  send: (text: string, over?: Partial<InboundMessage>) => Promise<InboundOutcome>;
  cleanup: () => void;
}

let seq = 0;

export function harness(
  opts: {
    config?: Record<string, unknown>;
    agent?: FakeAgent;
    channel?: FakeChannel;
    mediaPolicy?: MediaPolicy;
    resolver?: AgentResolver;
    warm?: WarmPort;
    start?: boolean;
    store?: ReturnType<typeof tempDb>;
    tools?: QueueOptions['tools'];
    interactions?: QueueOptions['interactions'];
    clock?: { now: number };
    route?: QueueOptions['route'];
    roles?: QueueOptions['roles'];
    progress?: QueueOptions['progress'];
    places?: QueueOptions['places'];
    /** Wraps the queue's store port (e.g. to make one operation fail). */
    queueStore?: (port: QueueOptions['store']) => QueueOptions['store'];
  } = {},
): Harness {
  const store = opts.store ?? tempDb();
  const agent = opts.agent ?? new FakeAgent((req) => ok(`echo: ${req.prompt}`));
  const channel = opts.channel ?? new FakeChannel();
  const { log, lines } = memoryLog();
  const config = configSchema.parse(opts.config ?? {}) as QueueConfig;
  const clock = opts.clock ?? { now: 1_700_000_000_000 };
  const queue = new Queue({
    store: (opts.queueStore ?? ((p) => p))(sqliteQueueStore(store.db)),
    channels: new Map([[channel.name, channel]]),
    resolve: opts.resolver ?? agent.resolver(),
    mediaPolicy: opts.mediaPolicy ?? approveAll,
    config,
    log,
    defaultCwd: '/work/dir',
    now: () => clock.now,
    delivery: { retryForMs: 10_000, backoffMs: () => 1, waitMs: 5 },
    timeZone: 'UTC',
    ...(opts.warm ? { warm: opts.warm } : {}),
    ...(opts.tools && { tools: opts.tools }),
    ...(opts.interactions && { interactions: opts.interactions }),
    ...(opts.route && { route: opts.route }),
    ...(opts.roles && { roles: opts.roles }),
    ...(opts.progress && { progress: opts.progress }),
    ...(opts.places && { places: opts.places }),
  });
  if (opts.start !== false) void queue.start();
  const send = (text: string, over: Partial<InboundMessage> = {}) =>
    queue.handleInbound(inbound({ messageId: `m${++seq}`, text, channel: channel.name, ...over }));
  return {
    queue,
    agent,
    channel,
    store,
    lines,
    clock,
    send,
    cleanup: () => {
      queue.deliverer.stop();
      store.cleanup();
    },
  };
}
