// The relay core's queue: inbound messages become durable inbox rows, chat lanes run them one at a
// time per chat under a global cap, the busy policy decides what a run takes, and every answer goes
// through the outbox. Channels call `handleInbound`; heartbeats use the SystemRunner half.
import { dirname, isAbsolute } from 'node:path';
import { AGENT_KINDS, type AgentKind } from '../agents/types.js';
import type { InboundHandler, InboundOutcome } from '../channels/types.js';
import type { ChunkRules } from '../core/chunk.js';
import { executeCommand } from '../core/command-handler.js';
import { type CommandSettings, parseCommand } from '../core/commands.js';
import { NOTICE, replyChunks } from '../core/reply.js';
import type {
  ChannelName,
  ChatKey,
  InboundMessage,
  OutboundItem,
  SystemRunner,
  SystemRunOptions,
  SystemRunOutcome,
} from '../core/types.js';
import { chatKey, parseChatKey } from '../core/types.js';
import { maskId } from '../log.js';
import { transaction } from '../store/db.js';
import { countPending, insertInbound, pendingByChat } from '../store/inbox.js';
import { countUnsent, enqueueOutbound } from '../store/outbox.js';
import { recordRun, runRecord } from '../store/runs.js';
import { composeItems } from './compose.js';
import { Deliverer, deliveryOptions } from './delivery.js';
import { currentAgent, type ExecuteDeps, execute, keepSession } from './execute.js';
import { type ActiveRun, Lanes } from './lanes.js';
import type { Clock } from './ports.js';
import type { QueueOptions, QueueStatus } from './queue-types.js';
import { recover } from './recovery.js';
import { runUserBatch } from './user-run.js';

export type { QueueConfig, QueueOptions, QueueStatus } from './queue-types.js';

/** The text limit for a chat of a channel no plug-in knows (the console, or a test's fake). */
const FALLBACK_TEXT_LIMIT = 1600;

export class Queue implements SystemRunner {
  readonly lanes: Lanes;
  readonly deliverer: Deliverer;
  readonly now: Clock;
  private readonly exec: ExecuteDeps;
  private readonly commands: CommandSettings;
  private closing = false;

  constructor(readonly opts: QueueOptions) {
    this.now = opts.now ?? Date.now;
    this.lanes = new Lanes(opts.config.queue.maxConcurrentRuns);
    this.deliverer = new Deliverer(
      opts.db,
      opts.channels,
      opts.log,
      this.now,
      opts.delivery ?? deliveryOptions(opts.config.delivery),
      opts.storeRetryMs,
    );
    this.commands = opts.config.commands;
    this.exec = {
      db: opts.db,
      resolve: opts.resolve,
      defaultAgent: opts.config.agent.kind as AgentKind,
      scope: opts.config.sessions.scope,
      idleMinutes: opts.config.sessions.idleMinutes,
      lanes: this.lanes,
      now: this.now,
      log: opts.log,
    };
  }

  /** Picks up what a previous process left (interrupted runs, unsent replies) and starts working. */
  start(): void {
    const plan = recover(this.opts.db, (chat) => this.deliverer.owns(chat), this.now());
    if (plan.requeue.length > 0 || plan.fail.size > 0) {
      this.opts.log.warn(
        { requeued: plan.requeue, failed: [...plan.fail.values()].flat() },
        'recovered messages whose run never finished',
      );
    }
    for (const chat of plan.ready) this.lanes.markReady(chat);
    this.deliverer.kickAll();
    this.pump();
  }

  handleInbound: InboundHandler = async (msg) => {
    if (this.closing) return { type: 'failed', error: 'the relay is shutting down' };
    try {
      return this.accept(msg);
    } catch (err) {
      // Not stored: the channel must not acknowledge, so the peer delivers the message again.
      this.opts.log.error(
        { err, channel: msg.channel, chat: maskId(msg.chatId) },
        'could not store inbound message',
      );
      return { type: 'failed', error: 'could not store the message' };
    }
  };

  private accept(msg: InboundMessage): InboundOutcome {
    const chat = chatKey(msg.channel, msg.chatId);
    const cmd = parseCommand(msg.text, this.commands);
    if (cmd) return this.command(msg, chat, cmd);
    if (!msg.text.trim() && msg.media.length === 0 && !msg.remoteMedia?.length)
      return { type: 'rejected', reason: 'empty message' };
    const db = this.opts.db;
    const now = this.now();
    const max = this.opts.config.queue.maxPendingPerChat;
    const res = transaction(db, () => {
      if (countPending(db, chat) < max) return { ...insertInbound(db, msg, { now }), dropped: false };
      const ins = insertInbound(db, msg, { now, status: 'dropped', note: 'queue_full' });
      if (ins.type === 'inserted' && this.lanes.claimDropNotice(chat)) {
        enqueueOutbound(db, chat, `drop:${ins.id}`, this.textItems(chat, NOTICE.dropping), now);
      }
      return { ...ins, dropped: true };
    });
    if (res.type === 'duplicate') {
      this.opts.log.info({ channel: msg.channel, chat: maskId(chat) }, 'duplicate inbound message ignored');
      return { type: 'duplicate' };
    }
    if (res.dropped) {
      this.opts.log.warn(
        { chat: maskId(chat), inboxId: res.id, messageId: msg.messageId, waiting: max },
        'chat queue full: message dropped',
      );
      this.deliverer.kick(chat);
      return { type: 'rejected', reason: 'queue full' };
    }
    this.arrived(chat);
    return { type: 'stored', inboxId: res.id };
  }

  private command(
    msg: InboundMessage,
    chat: ChatKey,
    cmd: NonNullable<ReturnType<typeof parseCommand>>,
  ): InboundOutcome {
    const db = this.opts.db;
    const now = this.now();
    // `/new text` (or /new with an attachment) is also the first message of the fresh session.
    const firstPrompt =
      cmd.type === 'new' && (cmd.rest !== '' || msg.media.length > 0 || Boolean(msg.remoteMedia?.length));
    const ins = transaction(db, () => {
      const r = firstPrompt
        ? insertInbound(db, msg, { now, text: cmd.rest })
        : insertInbound(db, msg, { now, kind: 'command', status: 'done', note: cmd.type });
      if (r.type === 'duplicate') return r;
      const reply = executeCommand(this.commandEnv(now), chat, cmd);
      enqueueOutbound(db, chat, `cmd:${r.id}`, this.textItems(chat, reply), now);
      return r;
    });
    if (ins.type === 'duplicate') return { type: 'duplicate' };
    this.opts.log.info({ chat: maskId(chat), command: cmd.type }, 'chat command');
    if (firstPrompt) this.arrived(chat);
    this.deliverer.kick(chat);
    return { type: 'command' };
  }

  private commandEnv(now: number) {
    const cfg = this.opts.config;
    const configured = new Set<AgentKind>([cfg.agent.kind as AgentKind]);
    for (const k of AGENT_KINDS) if (cfg.agents[k]) configured.add(k);
    return {
      db: this.opts.db,
      now,
      settings: this.commands,
      defaultAgent: this.exec.defaultAgent,
      configuredAgents: [...configured],
      scope: cfg.sessions.scope,
      idleMinutes: cfg.sessions.idleMinutes,
      resolve: this.opts.resolve,
      activeRun: (chat: ChatKey) => this.lanes.get(chat),
      stopRun: (chat: ChatKey) => this.stopChat(chat),
      resetScope: (scope: string) => this.lanes.bumpEpoch(scope),
    };
  }

  /** A message was stored for `chat`: interrupt if the policy says so, else wait for a slot. */
  private arrived(chat: ChatKey): void {
    if (this.opts.hold) return;
    if (this.lanes.get(chat)) {
      if (this.opts.config.queue.whileBusy === 'interrupt') this.lanes.abort(chat, 'interrupt');
      return;
    }
    this.lanes.markReady(chat);
    this.pump();
  }

  /** Aborts the chat's run now (its process group is killed by the runner); true if one ran. */
  stopChat(chat: ChatKey): boolean {
    const run = this.lanes.abort(chat, 'stop');
    if (run) this.opts.log.info({ chat: maskId(chat), label: run.label }, 'run stopped');
    return Boolean(run);
  }

  private pump(): void {
    while (!this.closing && this.lanes.hasSlot()) {
      const chat = this.lanes.takeReady();
      if (!chat) return;
      // Never an unhandled rejection (it would end the relay): a store gone mid-run (closed at
      // shutdown, or a disk error past the run's own handling) is logged; the rows stay for recovery.
      this.runUser(chat).catch((err) =>
        this.opts.log.error({ err, chat: maskId(chat) }, 'run stopped by an error'),
      );
    }
  }

  private runUser(chat: ChatKey): Promise<void> {
    const cfg = this.opts.config.queue;
    const channel = (parseChatKey(chat) as { channel: ChannelName }).channel;
    return runUserBatch(
      {
        exec: this.exec,
        mediaPolicy: this.opts.mediaPolicy,
        channel: this.opts.channels.get(channel),
        limit: this.textLimit(channel),
        take: cfg.whileBusy === 'followup' ? 1 : cfg.maxPendingPerChat,
        maxPromptChars: cfg.maxPromptChars,
        timeZone: this.opts.timeZone,
        deliver: () => this.deliverer.kick(chat),
        afterRun: () => this.afterRun(chat),
        storeRetryMs: this.opts.storeRetryMs ?? 1000,
      },
      chat,
    );
  }

  private afterRun(chat: ChatKey): void {
    if (!this.closing && countPending(this.opts.db, chat) > 0) this.lanes.markReady(chat);
    this.deliverer.kick(chat);
    this.pump();
  }

  /**
   * The splitter's rules for a channel, from its plug-in, whether or not the channel runs in this
   * process: a reply stored by `agentwire heartbeat` (no channel running) is cut exactly as the relay
   * would cut it, so the channel sends each stored chunk as one message and never splits again.
   * A running channel's own textLimit wins (a test's fake channel, the console).
   */
  private textLimit(channel: ChannelName): ChunkRules {
    const rules = this.opts.textRules?.(channel);
    const running = this.opts.channels.get(channel)?.textLimit;
    return { limit: running ?? rules?.limit ?? FALLBACK_TEXT_LIMIT, fences: rules?.fences ?? true };
  }

  private textItems(chat: ChatKey, text: string): OutboundItem[] {
    const channel = (parseChatKey(chat) as { channel: ChannelName }).channel;
    return replyChunks(text, this.textLimit(channel)).map((t) => ({ type: 'text', text: t }));
  }

  // SystemRunner: heartbeats and schedules.

  async runIfIdle(chat: ChatKey, prompt: string, opts: SystemRunOptions): Promise<SystemRunOutcome> {
    if (
      this.closing ||
      this.lanes.get(chat) ||
      !this.lanes.hasSlot() ||
      countPending(this.opts.db, chat) > 0
    ) {
      return { type: 'busy' };
    }
    const controller = new AbortController();
    let finished!: () => void;
    const run: ActiveRun = {
      kind: 'system',
      label: opts.label,
      ids: [],
      startedAt: this.now(),
      controller,
      done: new Promise((r) => {
        finished = r;
      }),
    };
    this.lanes.begin(chat, run);
    try {
      const out = await execute(this.exec, chat, prompt, { ...opts, signal: controller.signal });
      switch (out.type) {
        case 'no_session':
          return { type: 'no_session' };
        case 'unavailable':
          return {
            type: 'ran',
            result: { type: 'error', kind: 'not_installed', message: out.error, durationMs: 0 },
          };
        case 'ran': {
          keepSession(this.exec, out, opts.touchIdle);
          const recorded = recordRun(
            this.opts.db,
            runRecord(chat, out.agent, opts.label, out.result, this.now(), this.opts.timeZone),
          );
          if (!recorded.ok) this.opts.log.warn({ error: recorded.error }, 'could not record the run history');
          return { type: 'ran', result: out.result };
        }
      }
    } finally {
      this.lanes.end(chat, run);
      this.afterRun(chat);
      finished();
    }
  }

  /**
   * `ownerFiles`: the media are files the owner named on the command line (already absolute real
   * paths): their own folders count as allowed roots, the other checks (regular file, size) stay.
   */
  async deliver(
    chat: ChatKey,
    key: string,
    text: string,
    media: string[],
    opts: { ownerFiles?: boolean } = {},
  ): Promise<void> {
    const target = parseChatKey(chat);
    if (!target) throw new Error(`not a chat key: ${chat}`);
    const resolved = this.opts.resolve(currentAgent(this.exec, chat));
    const cwd = resolved.ok ? resolved.agent.base.cwd : this.opts.defaultCwd;
    const limit = this.textLimit(target.channel);
    const items = await composeItems(
      this.opts.mediaPolicy,
      {
        text,
        media,
        channel: target.channel,
        cwd,
        limit,
        extraRoots: opts.ownerFiles ? media.filter((m) => isAbsolute(m)).map((m) => dirname(m)) : [],
      },
      this.opts.log,
    );
    if (items.length === 0) return;
    enqueueOutbound(this.opts.db, chat, `sys:${key}`, items, this.now());
    this.deliverer.kick(chat);
  }

  status(): QueueStatus {
    return {
      policy: this.opts.config.queue.whileBusy,
      maxConcurrentRuns: this.lanes.maxConcurrent,
      active: this.lanes.runs().map(([chat, r]) => ({
        chat,
        kind: r.kind,
        label: r.label,
        startedAt: r.startedAt,
        messages: r.ids.length,
      })),
      waiting: pendingByChat(this.opts.db),
      unsentReplies: countUnsent(this.opts.db),
    };
  }

  /** Resolves once no run is active or waiting for a slot and nothing is being sent. */
  async whenIdle(): Promise<void> {
    for (;;) {
      const runs = this.lanes.runs();
      if (runs.length > 0) {
        await Promise.all(runs.map(([, r]) => r.done));
        continue;
      }
      await this.deliverer.idle();
      if (this.lanes.activeCount === 0 && (this.closing || this.lanes.readyCount() === 0)) return;
    }
  }

  /**
   * Stops taking work, lets running agents finish for up to `graceMs`, then aborts the rest (their
   * messages go back to waiting, for the next start), sends the replies that can go out now and
   * stops sending. Only running agents are waited for: a reply that cannot go out (its channel
   * waits for a relink, a send waits to retry) stays in the outbox for the next start.
   */
  async shutdown(graceMs: number): Promise<void> {
    this.closing = true;
    const deadline = this.now() + graceMs;
    const running = () => this.lanes.runs().map(([, r]) => r.done);
    if (running().length > 0) await Promise.race([Promise.all(running()), delay(graceMs)]);
    for (const [chat] of this.lanes.runs()) this.lanes.abort(chat, 'shutdown');
    await Promise.all(running());
    this.deliverer.finish();
    await Promise.race([this.deliverer.idle(), delay(Math.max(1000, deadline - this.now()))]);
    this.deliverer.stop();
    await this.deliverer.idle();
  }
}

const delay = (ms: number) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    t.unref();
  });
