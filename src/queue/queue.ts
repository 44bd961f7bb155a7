// The relay core's queue: inbound messages become durable inbox rows, chats' run slots run them one at a
// time per chat under a global cap, every answer goes through the outbox. Channels call `handleInbound`;
// heartbeats the SystemRunner half. A run, claim to reply, is run.ts (system-run.ts for heartbeats); what
// a message and a command do is decided by pure functions (busy-policy.ts, core/command-handler.ts).
import { mkdirSync } from 'node:fs';
import { dirname, isAbsolute } from 'node:path';
import type { AgentKind } from '../agents/types.js';
import type { InboundHandler, InboundOutcome } from '../channels/types.js';
import { type ChunkRules, channelRules } from '../core/chunk.js';
import { type ChatCommand, type CommandSettings, parseCommand } from '../core/commands.js';
import { type CustomCommand, customCommands, parseCustom } from '../core/custom-commands.js';
import { NOTICE, textItems } from '../core/reply.js';
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
import type { RunCheck } from '../heartbeat/check.js';
import { checkEnv, createRunCheck } from '../heartbeat/run-check.js';
import { maskId } from '../log.js';
import type { QueueStore } from '../store/queue-ops.js';
import { answerRoute } from './answer-route.js';
import { onArrival } from './busy-policy.js';
import { applyCommand, type CommandDeps, stopRun } from './chat-command.js';
import { controlKey, controlsOf } from './chat-control.js';
import { composeItems } from './compose.js';
import { applyCustom, type CustomDeps } from './custom-command.js';
import { Deliverer, deliveryOptions } from './delivery.js';
import { currentAgent, type RunContext } from './execute.js';
import { Interactions } from './interactions.js';
import { unwrap } from './persist.js';
import type { Clock } from './ports.js';
import { type QueueOptions, type QueueStatus, queueStatus } from './queue-types.js';
import { recover } from './recovery.js';
import { runChat } from './run.js';
import { RunSlots } from './run-slots.js';
import { startShared } from './shared-start.js';
import { steerLater } from './steer.js';
import { runSystem } from './system-run.js';
import { nextReady, Settling, warmDemand } from './warm-demand.js';

export type { QueueConfig, QueueOptions, QueueStatus } from './queue-types.js';

/** The text limit for a chat of a channel no plug-in knows (the console, or a test's fake). */

export class Queue implements SystemRunner {
  readonly runSlots: RunSlots;
  readonly deliverer: Deliverer;
  readonly now: Clock;
  private readonly store: QueueStore;
  private readonly context: RunContext;
  private readonly commands: CommandSettings;
  private readonly commandDeps: CommandDeps;
  /** The user's own commands (`commands.<name>`), by lower-case name. */
  private readonly custom: Record<string, CustomCommand>;
  private runScript: RunCheck | undefined;
  private readonly scriptsStop = new AbortController();
  private readonly scripts = new Set<Promise<unknown>>();
  /** Questions and approvals runs put to their chats; undefined when the relay asks nobody. */
  readonly interactions: Interactions | undefined;
  private closing = false;
  /** Runs that ended and whose follow-up (what the chat runs next) is not done yet. */
  private readonly settling = new Set<Promise<unknown>>();
  /**
   * Messages handed over and not yet answered: work for whenIdle, since the store may take its time
   * (the message is stored, but the chat is not marked ready until the store has answered).
   */
  private readonly accepting = new Set<Promise<unknown>>();
  /** Their chats: still the warm pool's demand until the follow-up is decided. */
  private readonly settlingChats = new Settling();
  /** Recovery at start: nothing is accepted before what a previous process left is back in order. */
  private started: Promise<void> = Promise.resolve();

  constructor(readonly opts: QueueOptions) {
    this.now = opts.now ?? Date.now;
    this.store = opts.store;
    this.runSlots = new RunSlots(opts.config.queue.maxConcurrentRuns, this.now);
    opts.warm?.attach?.(warmDemand(this.runSlots, this.settlingChats, opts.config.sessions.scope));
    this.deliverer = new Deliverer(
      opts.store,
      opts.channels,
      opts.log,
      this.now,
      opts.delivery ?? deliveryOptions(opts.config.delivery),
      opts.storeRetryMs,
      opts.owner,
    );
    this.commands = opts.config.commands;
    this.custom = customCommands(opts.config.commands);
    this.interactions =
      opts.interactions &&
      new Interactions({
        ...opts.interactions,
        kick: (chat) => this.deliverer.kick(chat),
        textItems: (chat, text) => this.textItems(chat, text),
        now: this.now,
        log: opts.log,
      });
    this.context = {
      store: opts.store,
      resolve: opts.resolve,
      defaultAgent: opts.config.agent.kind as AgentKind,
      scope: opts.config.sessions.scope,
      idleMinutes: opts.config.sessions.idleMinutes,
      runSlots: this.runSlots,
      now: this.now,
      log: opts.log,
      ...(opts.tools && { tools: opts.tools }),
      ...(this.interactions && { interactions: this.interactions }),
      ...(opts.route && { route: opts.route }),
      ...(opts.roles && { roles: opts.roles }),
      ...(opts.owner && { owner: opts.owner }),
    };
    this.commandDeps = {
      context: this.context,
      store: opts.store,
      runSlots: this.runSlots,
      resolve: opts.resolve,
      config: opts.config,
      log: opts.log,
      textItems: (chat, text) => this.textItems(chat, text),
      ...(opts.warm && { warm: opts.warm }),
      ...(this.interactions && { interactions: this.interactions }),
    };
  }

  /** Picks up what a previous process left (interrupted runs, unsent replies) and starts working. */
  start(): Promise<void> {
    const recovered = this.recover();
    // A failed recovery is the caller's to report; messages are still taken meanwhile.
    this.started = recovered.catch(() => undefined);
    return recovered;
  }

  private async recover(): Promise<void> {
    const owner = this.opts.owner;
    if (owner)
      return startShared(owner, this, {
        unfinished: () => this.store.unfinished(),
        closing: () => this.closing,
        pump: () => this.pump(),
        stopRun: (chat) => this.stopChat(chat),
        closeWarm: (scope) =>
          void this.opts.warm
            ?.close(scope)
            .catch((err) => this.opts.log.warn({ err }, 'could not close a warm process')),
      });
    const plan = await recover(this.store, (chat) => this.deliverer.owns(chat), this.now());
    if (plan.requeue.length > 0 || plan.fail.size > 0) {
      this.opts.log.warn(
        { requeued: plan.requeue, failed: [...plan.fail.values()].flat() },
        'recovered messages whose run never finished',
      );
    }
    for (const chat of plan.ready) this.runSlots.markReady(chat);
    // What a previous process left waiting on a chat: its run is gone, so it is denied and said so.
    await this.interactions?.start((chat) => this.deliverer.owns(chat));
    await this.deliverer.kickAll();
    this.pump();
  }

  handleInbound: InboundHandler = async (msg) => {
    if (this.closing) return { type: 'failed', error: 'the relay is shutting down' };
    const accepted = this.started.then(() => this.accept(msg));
    this.accepting.add(accepted);
    try {
      return await accepted;
    } catch (err) {
      // Not stored: the channel must not acknowledge, so the peer delivers the message again.
      this.opts.log.error(
        { err, channel: msg.channel, chat: maskId(msg.chatId) },
        'could not store inbound message',
      );
      return { type: 'failed', error: 'could not store the message' };
    } finally {
      this.accepting.delete(accepted);
    }
  };

  private async accept(msg: InboundMessage): Promise<InboundOutcome> {
    const chat = chatKey(msg.channel, msg.chatId);
    const cmd = parseCommand(msg.text, this.commands);
    if (cmd) return this.command(msg, chat, cmd);
    const custom = parseCustom(msg.text, this.commands.prefix, Object.keys(this.custom));
    if (custom) {
      const def = this.custom[custom.name] as CustomCommand;
      const res = await applyCustom(this.customDeps(), msg, chat, custom.name, custom.args, def);
      if (res.type === 'done') return { type: res.duplicate ? 'duplicate' : 'command' };
      // A prompt command: the expanded prompt is the chat's message from here on.
      return this.acceptMessage(res.msg, chat);
    }
    // The answer to what a run asks the chat is recorded and handed to the run, never run itself.
    const routed = this.interactions && (await answerRoute(this.interactions, msg, chat, this.now()));
    if (routed?.type === 'command') return this.command(msg, chat, routed.command);
    if (routed) return routed.outcome;
    return this.acceptMessage(msg, chat);
  }

  private customDeps(): CustomDeps {
    this.runScript ??= this.opts.runScript ?? this.hostScript();
    return {
      ...this.commandDeps,
      runScript: this.runScript,
      kick: (chat) => this.deliverer.kick(chat),
      now: this.now,
    };
  }

  /**
   * A script runs in the agent's working folder, made (private) the first time as a run would. At
   * shutdown the running ones are stopped (their groups too) and waited for.
   */
  private hostScript(): RunCheck {
    const cwd = this.opts.defaultCwd;
    const run = createRunCheck({ env: checkEnv(process.env), cwd, signal: this.scriptsStop.signal });
    return (argv, timeoutMs) => {
      mkdirSync(cwd, { recursive: true, mode: 0o700 });
      const p = run(argv, timeoutMs);
      this.scripts.add(p);
      void p.finally(() => this.scripts.delete(p));
      return p;
    };
  }

  private async acceptMessage(msg: InboundMessage, chat: ChatKey): Promise<InboundOutcome> {
    if (!msg.text.trim() && msg.media.length === 0 && !msg.remoteMedia?.length)
      return { type: 'rejected', reason: 'empty message' };
    const max = this.opts.config.queue.maxPendingPerChat;
    // Claimed before the write (a write that refuses it gives it back): one notice per overflow.
    const notice = this.runSlots.claimDropNotice(chat);
    const res = unwrap(
      await this.store.acceptInbound(msg, {
        now: this.now(),
        maxPending: max,
        ...(notice && { dropNotice: this.textItems(chat, NOTICE.dropping) }),
      }),
    );
    if (notice && !(res.type === 'dropped' && res.noticed)) this.runSlots.clearDropNotice(chat);
    if (res.type === 'duplicate') {
      this.opts.log.info({ channel: msg.channel, chat: maskId(chat) }, 'duplicate inbound message ignored');
      return { type: 'duplicate' };
    }
    if (res.type === 'dropped') {
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

  private async command(msg: InboundMessage, chat: ChatKey, cmd: ChatCommand): Promise<InboundOutcome> {
    const res = await applyCommand(this.commandDeps, msg, chat, cmd, this.now());
    if (res.type === 'duplicate') return { type: 'duplicate' };
    this.opts.log.info({ chat: maskId(chat), command: cmd.type }, 'chat command');
    // The chat's run or warm process may be another process's: it is told (queue/chat-control.ts).
    for (const c of controlsOf(chat, res.effects)) this.opts.owner?.tell('chat_control', controlKey(c));
    if (res.firstPrompt) this.arrived(chat);
    this.deliverer.kick(chat);
    return { type: 'command' };
  }

  /** A message was stored for `chat`: what the busy policy says, or wait for a slot. */
  private arrived(chat: ChatKey): void {
    if (this.opts.hold) return;
    switch (onArrival(this.opts.config.queue.whileBusy, Boolean(this.runSlots.get(chat)))) {
      case 'interrupt':
        this.runSlots.abort(chat, 'interrupt');
        return;
      case 'wait':
        return;
      case 'steer': {
        const run = this.runSlots.get(chat);
        const warm = this.opts.warm;
        const requeued = () => {
          this.runSlots.markReady(chat);
          this.pump();
        };
        if (run && warm)
          steerLater({ ...this.context, warm, timeZone: this.opts.timeZone, requeued }, chat, run);
        return;
      }
      case 'start':
        this.runSlots.markReady(chat);
        this.pump();
    }
  }

  /** Aborts the chat's run now (its process group is killed by the runner); true if one ran. */
  stopChat(chat: ChatKey): boolean {
    return stopRun(this.commandDeps, chat);
  }

  private pump(): void {
    while (!this.closing && this.runSlots.hasSlot()) {
      const chat = this.runSlots.takeReady(
        nextReady(this.runSlots, this.opts.warm, this.opts.config, this.now()),
      );
      if (!chat) return;
      // runChat takes the run slot before it awaits anything, so this loop never passes the cap.
      // Never an unhandled rejection (it would end the relay): a store gone mid-run (closed at
      // shutdown, or a disk error past the run's own handling) is logged; the rows stay for recovery.
      this.settle(chat, runChat(this.runDeps(chat), chat)).catch((err) =>
        this.opts.log.error({ err, chat: maskId(chat) }, 'run stopped by an error'),
      );
    }
  }

  private runDeps(chat: ChatKey) {
    const cfg = this.opts.config.queue;
    const channel = (parseChatKey(chat) as { channel: ChannelName }).channel;
    const progress = this.opts.progress;
    const settings = progress?.settings(channel);
    return {
      ...(progress && settings && { progress: { port: progress.port, settings } }),
      context: this.context,
      mediaPolicy: this.opts.mediaPolicy,
      deliverer: this.deliverer,
      channel: this.opts.channels.get(channel),
      limit: this.textLimit(channel),
      whileBusy: cfg.whileBusy,
      maxPendingPerChat: cfg.maxPendingPerChat,
      maxPromptChars: cfg.maxPromptChars,
      timeZone: this.opts.timeZone,
      storeRetryMs: this.opts.storeRetryMs ?? 1000,
    };
  }

  /** After a run (of either kind): the chat is ready again if messages wait, and its replies go out. */
  private settle<T>(chat: ChatKey, run: Promise<T>): Promise<T> {
    this.settlingChats.add(chat);
    const after = run.finally(async () => {
      try {
        // A chat another process holds is not tried again here: its holder runs what waits.
        const mayRun = !this.closing && !this.opts.owner?.blocked(chat);
        if (mayRun && (await this.store.countPending(chat)) > 0) this.runSlots.markReady(chat);
      } finally {
        this.settlingChats.done(chat);
      }
      if (!this.runSlots.isReady(chat)) this.opts.warm?.demandChanged?.();
      this.deliverer.kick(chat);
      this.pump();
    });
    const tracked = after.then(
      () => undefined,
      () => undefined,
    );
    this.settling.add(tracked);
    void tracked.then(() => this.settling.delete(tracked));
    return after;
  }

  /**
   * The splitter's rules for a channel, from its plug-in, whether or not the channel runs in this
   * process: a reply stored by `agentwire heartbeat` (no channel running) is cut exactly as the relay
   * would cut it, so the channel sends each stored chunk as one message and never splits again.
   * A running channel's own textLimit wins (a test's fake channel, the console).
   */
  private textLimit(channel: ChannelName): ChunkRules {
    return channelRules(this.opts.channels.get(channel)?.textLimit, this.opts.textRules?.(channel));
  }

  private textItems(chat: ChatKey, text: string): OutboundItem[] {
    const channel = (parseChatKey(chat) as { channel: ChannelName }).channel;
    return textItems(text, this.textLimit(channel));
  }

  // SystemRunner: heartbeats and schedules.

  async runIfIdle(chat: ChatKey, prompt: string, opts: SystemRunOptions): Promise<SystemRunOutcome> {
    const busy = () => this.closing || Boolean(this.runSlots.get(chat)) || !this.runSlots.hasSlot();
    if (busy() || (await this.store.countPending(chat)) > 0 || busy()) return { type: 'busy' };
    return this.settle(chat, runSystem(this.context, this.opts.timeZone, chat, prompt, opts));
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
    const resolved = this.opts.resolve(await currentAgent(this.context, chat));
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
    unwrap(await this.store.enqueueReply(chat, `sys:${key}`, items, this.now()));
    this.deliverer.kick(chat);
  }

  async status(): Promise<QueueStatus> {
    return queueStatus(this.opts, this.runSlots, this.store, this.now());
  }

  /** Resolves once no run is active or waiting for a slot and nothing is being sent. */
  async whenIdle(): Promise<void> {
    await this.started;
    for (;;) {
      const runs = this.runSlots.runs();
      if (runs.length > 0 || this.settling.size > 0 || this.accepting.size > 0) {
        const accepting = [...this.accepting].map((p) => p.catch(() => undefined));
        await Promise.all([...runs.map(([, r]) => r.done), ...this.settling, ...accepting]);
        continue;
      }
      await this.deliverer.idle();
      if (
        this.runSlots.activeCount === 0 &&
        this.settling.size === 0 &&
        (this.closing || this.runSlots.readyCount() === 0)
      )
        return;
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
    // A custom command's script is not a turn to let finish: it is stopped, its group with it.
    this.scriptsStop.abort();
    await Promise.all(this.scripts);
    const running = () => this.runSlots.runs().map(([, r]) => r.done);
    if (running().length > 0) await Promise.race([Promise.all(running()), delay(graceMs)]);
    for (const [chat] of this.runSlots.runs()) this.runSlots.abort(chat, 'shutdown');
    await Promise.all([...running(), ...this.settling]);
    this.deliverer.finish();
    await Promise.race([this.deliverer.idle(), delay(Math.max(1000, deadline - this.now()))]);
    this.deliverer.stop();
    await this.deliverer.idle();
    // Warm processes last: every run has ended, so none is busy; each closes within its own grace.
    await this.opts.warm?.shutdown(Math.max(1000, deadline - this.now()));
  }
}

const delay = (ms: number) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    t.unref();
  });
