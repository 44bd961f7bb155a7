// The relay core's queue: inbound messages become durable inbox rows, chats' run slots run them one at a
// time per chat under a global cap, every answer goes through the outbox. Channels call `handleInbound`;
// heartbeats the SystemRunner half. A run, claim to reply, is run.ts (system-run.ts for heartbeats); what
// a message and a command do is decided by pure functions (busy-policy.ts, core/command-handler.ts).

import type { InboundHandler, InboundOutcome } from '../channels/types.js';
import { type ChatCommand, type CommandSettings, parseCommand } from '../core/commands.js';
import { type CustomCommand, customCommands, parseCustom } from '../core/custom-commands.js';
import type {
  ChatKey,
  InboundMessage,
  OutboundItem,
  SystemRunner,
  SystemRunOptions,
  SystemRunOutcome,
} from '../core/types.js';
import { chatKey } from '../core/types.js';
import type { RunCheck } from '../heartbeat/check.js';
import { maskId } from '../log.js';
import { scopeFor } from '../store/contract/sessions.js';
import type { QueueStore } from '../store/queue-ops.js';
import { acceptMessage } from './accept-message.js';
import { answerRoute } from './answer-route.js';
import { onArrival } from './busy-policy.js';
import { applyCommand, type CommandDeps, stopRun } from './chat-command.js';
import { controlKey, controlsOf } from './chat-control.js';
import { chatTextItems } from './chat-text.js';
import { applyCustom, type CustomDeps } from './custom-command.js';
import { Deliverer, deliveryOptions } from './delivery.js';
import type { RunContext } from './execute.js';
import { HostScripts } from './host-scripts.js';
import { Interactions } from './interactions.js';
import { ownerItems } from './owner-send.js';
import { unwrap } from './persist.js';
import type { Clock } from './ports.js';
import { type QueueOptions, type QueueStatus, queueStatus } from './queue-types.js';
import { readyKey } from './ready-key.js';
import { recover } from './recovery.js';
import { runChat } from './run.js';
import { commandDeps, runContext, runDeps } from './run-context.js';
import { RunSlots } from './run-slots.js';
import { startShared } from './shared-start.js';
import { steerLater } from './steer.js';
import { runSystem } from './system-run.js';
import { nextReady, Settling, warmDemand } from './warm-demand.js';

export type { QueueConfig, QueueOptions, QueueStatus } from './queue-types.js';

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
  private readonly scripts: HostScripts;
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
      opts.sendLead,
    );
    this.commands = opts.config.commands;
    this.custom = customCommands(opts.config.commands);
    this.scripts = new HostScripts(opts.defaultCwd, opts.launcher);
    this.interactions =
      opts.interactions &&
      new Interactions({
        ...opts.interactions,
        kick: (chat) => this.deliverer.kick(chat),
        textItems: (chat, text) => this.textItems(chat, text),
        now: this.now,
        log: opts.log,
      });
    this.context = runContext(opts, this.runSlots, this.now, this.interactions);
    this.commandDeps = commandDeps(opts, this.context, (chat, text) => this.textItems(chat, text));
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
        scopeOf: (chat) => scopeFor(chat, this.context.scope),
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
    this.runScript ??= this.opts.runScript ?? this.scripts.runner();
    return {
      ...this.commandDeps,
      runScript: this.runScript,
      kick: (chat) => this.deliverer.kick(chat),
      now: this.now,
    };
  }

  private async acceptMessage(msg: InboundMessage, chat: ChatKey): Promise<InboundOutcome> {
    const out = await acceptMessage(
      {
        store: this.store,
        runSlots: this.runSlots,
        log: this.opts.log,
        now: this.now,
        maxPendingPerChat: this.opts.config.queue.maxPendingPerChat,
        textItems: (c, text) => this.textItems(c, text),
        kick: (c) => this.deliverer.kick(c),
      },
      msg,
      chat,
    );
    if (out.type !== 'stored') return out;
    const owner = this.opts.owner;
    // Held by another live process, or left to the live one that last ran it: that one (and only
    // it) is told; this process reads and tries no lease it cannot get. Else the busy policy, as alone.
    const to = !this.opts.hold && 'lease' in out ? owner?.leaveTo(chat, out.lease) : undefined;
    if (to) owner?.tell('chat_ready', readyKey(chat, to));
    else this.arrived(chat);
    return { type: 'stored', inboxId: out.inboxId };
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
      const run = runChat(runDeps(this.opts, this.context, this.deliverer, chat), chat);
      this.settle(chat, run, (waiting) => waiting).catch((err) =>
        this.opts.log.error({ err, chat: maskId(chat) }, 'run stopped by an error'),
      );
    }
  }

  /**
   * After a run (of either kind): the chat is ready again if messages wait, and its replies go out.
   * `waiting`: whether the run found the next message waiting (then its lease was kept for it).
   */
  private settle<T>(chat: ChatKey, run: Promise<T>, waiting?: (v: T) => boolean | undefined): Promise<T> {
    this.settlingChats.add(chat);
    let known: boolean | undefined;
    const seen = run.then((v) => {
      known = waiting?.(v);
      return v;
    });
    const after = seen.finally(async () => {
      try {
        // A chat another process holds is not tried again here: its holder runs what waits.
        const mayRun = !this.closing && !this.opts.owner?.blocked(chat);
        if (mayRun && (known ?? (await this.waitsAfterRun(chat)))) this.runSlots.markReady(chat);
        // Kept for a next run that will not start here (closing): given back.
        else if (known) await this.opts.owner?.unkeep(chat);
      } finally {
        this.settlingChats.done(chat);
      }
      if (!this.runSlots.isReady(chat)) this.opts.warm?.demandChanged?.();
      // A run that found the chat held elsewhere wrote nothing to send: its holder sends the replies.
      if (!this.opts.owner?.blocked(chat)) this.deliverer.kick(chat);
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
   * Whether a message waits, read after a run. A failed read is logged, not thrown over the run's
   * outcome (an events runner thrown at after its agent answered asked the agent once more), and is
   * not ready: a run failing at once on a store that is away would loop; the next kick looks again.
   */
  private waitsAfterRun(chat: ChatKey): Promise<boolean> {
    return this.store.countPending(chat).then(
      (n) => n > 0,
      (err: unknown) => {
        this.opts.log.warn({ err, chat: maskId(chat) }, 'could not read whether a message waits after a run');
        return false;
      },
    );
  }

  private textItems(chat: ChatKey, text: string): OutboundItem[] {
    return chatTextItems(this.opts, chat, text);
  }

  // SystemRunner: heartbeats and schedules.

  async runIfIdle(chat: ChatKey, prompt: string, opts: SystemRunOptions): Promise<SystemRunOutcome> {
    const busy = () => this.closing || Boolean(this.runSlots.get(chat)) || !this.runSlots.hasSlot();
    if (busy() || (await this.store.countPending(chat)) > 0 || busy()) return { type: 'busy' };
    return this.settle(chat, runSystem(this.context, this.opts.timeZone, chat, prompt, opts));
  }

  /** What the owner sends from outside a run (owner-send.ts); `ownerFiles`: files they named. */
  async deliver(
    chat: ChatKey,
    key: string,
    text: string,
    media: string[],
    opts: { ownerFiles?: boolean } = {},
  ): Promise<void> {
    const items = await ownerItems(this.opts, this.context, chat, text, media, opts.ownerFiles ?? false);
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
    await this.scripts.stop();
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
