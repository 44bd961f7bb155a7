// The codex driver: one live `codex app-server` speaking JSON-RPC over stdio, typed from codex's own
// schema (./codex-protocol.d.ts). `initialize` → `thread/start` or `thread/resume` → `turn/start` per turn,
// ended by `turn/completed`; a message mid-turn is `turn/steer`, /stop and the timeout `turn/interrupt`
// (then a kill if the turn does not end). As `codex exec`, threads run with approval "never" and the
// user's sandbox, except under permissions `ask` ("untrusted": codex asks, the chat answers through
// ./codex-permission.ts). This is one session (thread); the process is its host (./codex-host.ts),
// which other chats' threads may share.
import type { AgentResult, SessionRef } from '../agents/types.js';
import { progressTap } from '../core/progress-event.js';
import type { GroupGuard } from '../runner/spawn-stdio.js';
import type { Tap } from './acp-transport.js';
import { decide, turnAsking } from './approval.js';
import { CodexHost, type CodexLink } from './codex-host.js';
import { itemCompleted, itemStarted } from './codex-items.js';
import { answerCodexRequest, codexQuestion } from './codex-permission.js';
import type { Turn as CodexTurn, ServerNotification, ServerRequest, UserInput } from './codex-protocol.js';
import type { Answer, CodexPeer } from './codex-rpc.js';
import { codexRejectionText, RpcError } from './codex-rpc.js';
import { type Turn, threadSettings, turnResult } from './codex-turn.js';
import { HostedSession } from './hosted-session.js';
import type { HostedDriver } from './hosts.js';
import { codexProgress } from './progress-map.js';
import type { Settled } from './trouble.js';
import { turnMessages } from './turn-messages.js';
import { turnTimer } from './turn-timer.js';
import type { DriverOptions, OpenResult, SteerResult, TurnRequest } from './types.js';

/** What follows the codex command (`codex`, or a configured one) to start the server. */
export const APP_SERVER_ARGS = ['app-server'] as const;

export interface CodexDriverOptions extends DriverOptions {
  guard?: GroupGuard;
  /** Sees every protocol message both ways (fixture captures). */
  tap?: Tap;
  /** As the cold spec's `--model`, `model_reasoning_effort` and `developer_instructions`. */
  model?: string;
  thinking?: string;
  systemText?: string;
  /** The process this thread runs in (shared with other chats'); its own one when absent. */
  host?: CodexHost;
  /** Config overrides of this thread alone: agentwire's tools with this chat's token. */
  threadConfig?: Record<string, string | number | boolean | string[] | object>;
  /** A member's or guest's thread: codex's read-only sandbox, whatever the user's config says. */
  sandbox?: 'read-only';
}

export function codexDriver(options: CodexDriverOptions): HostedDriver {
  return new CodexDriver(options);
}

/** A process for codex sessions started as `options` says. */
export function codexHost(options: CodexDriverOptions): CodexHost {
  return new CodexHost({
    name: options.name,
    process: options.process,
    permission: options.permission,
    ...(options.startTimeoutMs !== undefined ? { startTimeoutMs: options.startTimeoutMs } : {}),
    ...(options.guard && { guard: options.guard }),
    ...(options.tap && { tap: options.tap }),
  });
}

class CodexDriver extends HostedSession<CodexLink, CodexPeer, Turn> {
  protected readonly host: CodexHost;
  protected readonly link: CodexLink = {
    threadId: () => this.sessionId,
    busy: () => this.current !== undefined,
    onNotification: (n) => this.onNotification(n),
    onRequest: (req) => this.onRequest(req),
    onFault: (f) => this.trouble.raise(f),
  };
  /**
   * Steered texts that never reached the model (the turn ended first, or was interrupted: codex
   * drops input steered into a turn that is then interrupted). They open the next turn, so a
   * message given to the agent is never silently lost.
   */
  private carried: string[] = [];
  /** The last turn that ended: its stragglers must not open the next turn's reply. */
  private endedTurnId: string | undefined;

  constructor(protected override readonly opts: CodexDriverOptions) {
    super(opts, (error) => error instanceof RpcError, codexRejectionText);
    this.host = opts.host ?? codexHost(opts);
    this.host.attach(this.link);
  }

  async open(session: SessionRef): Promise<OpenResult> {
    const t0 = performance.now();
    const ready = await this.connect(t0);
    if (ready.type !== 'ready') return ready;
    const settings = threadSettings(this.opts);
    if (session.type === 'resume') {
      const request = ready.conn.request('thread/resume', { threadId: session.id, ...settings });
      // codex answers an unknown thread id with an error response ("no rollout found …").
      return this.establish(request, (v) => v.thread.id, t0, 'thread/resume', 'session_not_found');
    }
    const request = ready.conn.request('thread/start', settings);
    return this.establish(request, (v) => v.thread.id, t0, 'thread/start', 'exit');
  }

  steer(text: string): SteerResult {
    const turn = this.current;
    if (!turn) return { type: 'idle' };
    // A turn being stopped takes nothing more: the caller runs the text as the next turn.
    if (turn.stopped || this.fault) return { type: 'unsupported' };
    turn.unseenSteers.push(text);
    if (turn.turnId) this.sendSteer(turn, turn.turnId, text);
    else turn.queuedSteers.push(text);
    return { type: 'steered' };
  }

  override async close(): Promise<void> {
    if (this.closed) return;
    await super.close();
    // Requests still waiting (an open cut short) end now, not with the process.
    this.trouble.raise({ type: 'exited', exitCode: null, signal: null });
  }

  protected async runTurn(peer: CodexPeer, threadId: string, req: TurnRequest, t0: number) {
    const gathered = turnMessages(req.onProgress);
    let graceTimer: NodeJS.Timeout | undefined;
    let completed: (t: CodexTurn) => void = () => {};
    const completion = new Promise<CodexTurn>((r) => {
      completed = r;
    });
    let resolveDone: (r: AgentResult) => void = () => {};
    const done = new Promise<AgentResult>((r) => {
      resolveDone = r;
    });
    const turn: Turn = {
      threadId,
      events: (evs) => gathered.add(evs),
      progress: progressTap(codexProgress, req.onEvent),
      usage: { input: 0, output: 0, seen: false },
      unseenSteers: [],
      queuedSteers: [],
      stop: (why) => {
        if (turn.stopped || this.fault) return;
        turn.stopped = why;
        turn.asking.abort();
        if (turn.turnId) this.interrupt(peer, turn, turn.turnId);
        graceTimer = this.graceTimer('turn/interrupt');
      },
      completed: (t) => completed(t),
      endedEarly: new Map(),
      done,
      asking: turnAsking(this.opts.permission, req.approve),
      files: new Map(),
    };
    const timer = turnTimer(req.timeoutMs, req.personWaitMs, () => turn.stop('timeout'));
    const onAbort = () => turn.stop('aborted');
    req.signal?.addEventListener('abort', onAbort, { once: true });
    this.current = turn;

    const carried = this.carried.splice(0);
    const input: UserInput[] = [...carried, req.prompt].map((text) => ({
      type: 'text',
      text,
      text_elements: [],
    }));
    const started = await this.settle(peer.request('turn/start', { threadId, input }), 0);
    let r: Settled<CodexTurn>;
    if (started.type === 'value') {
      const turnId = started.value.turn.id;
      turn.turnId = turnId;
      for (const text of turn.queuedSteers.splice(0)) this.sendSteer(turn, turnId, text);
      const early = turn.endedEarly.get(turnId);
      if (early) completed(early);
      else if (turn.stopped) this.interrupt(peer, turn, turnId);
      r = await this.settle(completion, 0);
    } else {
      // Not started: what was carried waits for the turn after (the caller re-runs the prompt).
      this.carried.unshift(...carried);
      r = started;
    }
    timer.clear();
    clearTimeout(graceTimer);
    turn.asking.abort();
    req.signal?.removeEventListener('abort', onAbort);
    // What was steered in but never seen as this turn's input waits for the next turn.
    this.carried.push(...turn.unseenSteers);

    const result = turnResult(this.opts.name, r, turn, gathered.messages, t0, (f) =>
      this.failure(f, t0, 'turn/start', 'exit', turn.stopped),
    );
    if (turn.turnId) this.endedTurnId = turn.turnId;
    this.current = undefined;
    this.host.turnEnded();
    resolveDone(result);
    return result;
  }

  private sendSteer(turn: Turn, turnId: string, text: string): void {
    const peer = this.host.connection();
    if (!peer) return;
    peer
      .request('turn/steer', {
        threadId: turn.threadId,
        expectedTurnId: turnId,
        input: [{ type: 'text', text, text_elements: [] }],
      })
      // Refused (the turn ended in between): it stays unseen and opens the next turn.
      .catch(() => {});
  }

  private interrupt(peer: CodexPeer, turn: Turn, turnId: string): void {
    void peer.request('turn/interrupt', { threadId: turn.threadId, turnId }).catch(() => {});
  }

  private onNotification(n: ServerNotification): void {
    const turn = this.current;
    if (!turn) return;
    switch (n.method) {
      case 'turn/completed':
        if (n.params.threadId !== turn.threadId) return;
        if (turn.turnId === undefined) turn.endedEarly.set(n.params.turn.id, n.params.turn);
        else if (n.params.turn.id === turn.turnId) turn.completed(n.params.turn);
        return;
      case 'item/started':
        if (!this.ours(turn, n.params.threadId, n.params.turnId)) return;
        if (n.params.item.type === 'userMessage') {
          for (const c of n.params.item.content) {
            if (c.type !== 'text') continue;
            const i = turn.unseenSteers.indexOf(c.text);
            if (i !== -1) turn.unseenSteers.splice(i, 1);
          }
        }
        if (n.params.item.type === 'fileChange')
          turn.files.set(
            n.params.item.id,
            n.params.item.changes.map((c) => c.path),
          );
        turn.events(itemStarted(n.params.item));
        turn.progress(n);
        return;
      case 'item/completed':
        if (!this.ours(turn, n.params.threadId, n.params.turnId)) return;
        turn.events(itemCompleted(n.params.item));
        turn.progress(n);
        return;
      case 'item/agentMessage/delta':
        if (this.ours(turn, n.params.threadId, n.params.turnId)) turn.progress(n);
        return;
      case 'thread/tokenUsage/updated':
        // One update per model call, `last` being that call: their sum is the turn's usage.
        if (!this.ours(turn, n.params.threadId, n.params.turnId)) return;
        turn.usage.input += n.params.tokenUsage.last.inputTokens;
        turn.usage.output += n.params.tokenUsage.last.outputTokens;
        turn.usage.seen = true;
        return;
      default:
        return;
    }
  }

  /** A notification of this turn (before `turn/start` answered, any of this thread's). */
  private ours(turn: Turn, threadId: string, turnId: string): boolean {
    if (threadId !== turn.threadId) return false;
    return turn.turnId === undefined ? turnId !== this.endedTurnId : turnId === turn.turnId;
  }

  /** A request of this thread: a person may be asked while a turn runs; else the policy answers. */
  private onRequest(req: ServerRequest): Promise<Answer> {
    const turn = this.current;
    const itemId = req.method === 'item/fileChange/requestApproval' ? req.params.itemId : '';
    const question = codexQuestion(req, turn?.files.get(itemId));
    const asking = turn?.asking ?? { policy: this.opts.permission };
    return decide(question, asking).then((v) => answerCodexRequest(req, v));
  }
}
