// The ACP driver: one live agent process speaking the Agent Client Protocol v1 over stdio
// (`gemini --acp`, `opencode acp`, or any agent a user brings), through the official library.
// The library does the JSON-RPC; this file keeps the promises a relay needs around it: a turn
// always ends (timeout → `session/cancel` → kill), every failure is an error result, and a process
// that died or stopped speaking the protocol is marked broken so the pool replaces it. This is one
// session; the process is its host (./acp-host.ts), which other chats' sessions may share.
import type {
  ClientConnection,
  McpServerStdio,
  RequestError,
  RequestPermissionRequest,
  SessionNotification,
  SessionUpdate,
} from '@agentclientprotocol/sdk';
import { okResult } from '../agents/common.js';
import type { AgentResult, SessionRef, StreamEvent } from '../agents/types.js';
import { progressTap } from '../core/progress-event.js';
import type { Logger } from '../log.js';
import type { GroupGuard } from '../runner/spawn-stdio.js';
import { AcpHost, type AcpLink } from './acp-host.js';
import { acpQuestion, answerPermission } from './acp-permission.js';
import { isAcpRequestError, loadedAcpSdk } from './acp-sdk.js';
import type { Tap } from './acp-transport.js';
import { type UpdateReducer, updateReducer } from './acp-updates.js';
import { type Asking, decide, turnAsking } from './approval.js';
import type { HostedDriver } from './hosts.js';
import { acpProgress } from './progress-map.js';
import {
  driverState,
  type ErrorResult,
  errorResult,
  faultDetail,
  faultKind,
  rejectionKind,
  unusableResult,
} from './results.js';
import { type Settled, Trouble } from './trouble.js';
import { turnMessages } from './turn-messages.js';
import { turnTimer } from './turn-timer.js';
import type {
  DriverFault,
  DriverOptions,
  DriverState,
  OpenResult,
  SessionDriver,
  SteerResult,
  TurnRequest,
} from './types.js';

const START_TIMEOUT_MS = 60_000;
const CANCEL_GRACE_MS = 5_000;
// After session/load: no update for this long means the replayed history is over (capped).
const REPLAY_QUIET_MS = 150;
const REPLAY_MAX_MS = 5_000;

interface Turn {
  sessionId: string;
  reducer: UpdateReducer;
  events: (events: StreamEvent[]) => void;
  /** The turn's progress events (drivers/progress-map.ts), masked and sent to its `onEvent`. */
  progress: (update: SessionUpdate) => void;
  stop: (why: 'timeout' | 'aborted') => void;
  done: Promise<AgentResult>;
  /** Who answers this turn's permission requests; aborted by the stop, so a waiting one is cancelled. */
  asking: Asking & { abort(): void };
  /** Updates that show the model at work (text, thought, tool call, plan) during this turn. */
  activity: number;
}

/** The updates that show the model answering; a usage or mode update does not. */
const ACTIVITY = new Set([
  'agent_message_chunk',
  'agent_thought_chunk',
  'tool_call',
  'tool_call_update',
  'plan',
]);

export interface AcpDriverOptions extends DriverOptions {
  guard?: GroupGuard;
  /** Given to every session this process opens (agentwire's tools for an agent with no other way). */
  mcpServers?: McpServerStdio[];
  /** Sees every protocol message both ways (fixture captures). */
  tap?: Tap;
  /** The process this session runs in (shared with other chats'); its own one when absent. */
  host?: AcpHost;
  /** Debug notes: a harmless misfit dropped, a stale end seen. */
  log?: Logger;
}

export function acpDriver(options: AcpDriverOptions): HostedDriver {
  return new AcpDriver(options);
}

/** A process for ACP sessions started as `options` says. */
export function acpHost(options: AcpDriverOptions): AcpHost {
  return new AcpHost({
    name: options.name,
    process: options.process,
    permission: options.permission,
    ...(options.startTimeoutMs !== undefined ? { startTimeoutMs: options.startTimeoutMs } : {}),
    ...(options.guard ? { guard: options.guard } : {}),
    ...(options.tap ? { tap: options.tap } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
}

class AcpDriver implements SessionDriver {
  private readonly host: AcpHost;
  private readonly link: AcpLink = {
    // While `session/load` runs, the replay it sends is routed here too (and ignored: no turn runs).
    sessionId: () => this.sessionId ?? this.loading,
    busy: () => this.current !== undefined,
    onUpdate: (n) => this.onUpdate(n),
    onPermission: (p) => this.onPermission(p),
    onFault: (f) => this.trouble.raise(f),
  };
  private sessionId: string | undefined;
  private current: Turn | undefined;
  private readonly trouble = new Trouble(isAcpRequestError, () => this.closed);
  private closed = false;
  private lastUpdateAt = 0;
  private loading: string | undefined;
  /** The last turn was stopped (/stop, timeout): the next one may get that stop's stale end. */
  private afterCancel = false;

  constructor(private readonly opts: AcpDriverOptions) {
    this.host = opts.host ?? acpHost(opts);
    this.host.attach(this.link);
  }

  /** Another session on this process is mid-turn (this one's turn, if any, counts too). */
  othersBusy(): boolean {
    return this.host.busySessions() > (this.current ? 1 : 0);
  }

  hostId(): string {
    return this.host.id;
  }

  state(): DriverState {
    const { closed, fault, sessionId: session } = this;
    return driverState({ closed, fault, busy: this.current?.sessionId, session });
  }

  pid(): number | undefined {
    return this.fault || this.closed ? undefined : this.host.pid();
  }

  async open(session: SessionRef): Promise<OpenResult> {
    const t0 = performance.now();
    if (this.closed || this.fault) return this.unusable(t0);
    if (this.current) return errorResult(this.opts.name, 'exit', t0, { detail: 'a turn is running' });
    const started = await this.host.start(t0);
    if (started) return started;
    const conn = this.host.connection();
    if (!conn || this.fault) return this.unusable(t0);
    const { methods } = loadedAcpSdk();
    // The session's own folder and tools: both are per session in ACP, not the process's.
    const cwd = this.opts.process.cwd;
    const mcpServers = this.opts.mcpServers ?? [];
    const ctx = conn.agent;
    if (session.type === 'resume') {
      if (!this.host.loadsSessions()) {
        return errorResult(this.opts.name, 'session_not_found', t0, {
          detail: 'the agent cannot load sessions (no loadSession capability)',
        });
      }
      this.loading = session.id;
      const r = await this.settle(
        ctx.request(methods.agent.session.load, { sessionId: session.id, cwd, mcpServers }),
        this.startTimeoutMs(),
      );
      this.loading = undefined;
      if (r.type === 'value') {
        this.sessionId = session.id;
        // gemini 0.61 replays the history after its answer to session/load, not before it as the
        // protocol asks; a turn started at once would take the old reply for its own.
        await this.quiet(session.id);
        return { type: 'ok', sessionId: session.id };
      }
      return this.failure(r, t0, 'session/load', 'session_not_found');
    }
    const r = await this.settle(
      ctx.request(methods.agent.session.new, { cwd, mcpServers }),
      this.startTimeoutMs(),
    );
    if (r.type === 'value') {
      this.sessionId = r.value.sessionId;
      return { type: 'ok', sessionId: r.value.sessionId };
    }
    return this.failure(r, t0, 'session/new', 'exit');
  }

  turn(request: TurnRequest): Promise<AgentResult> {
    const t0 = performance.now();
    if (this.closed || this.fault) return Promise.resolve(this.unusable(t0));
    if (this.current) return Promise.resolve(errorResult(this.opts.name, 'exit', t0, { detail: 'busy' }));
    const sessionId = this.sessionId;
    const conn = this.host.connection();
    if (!sessionId || !conn) {
      return Promise.resolve(errorResult(this.opts.name, 'exit', t0, { detail: 'no session is open' }));
    }
    if (request.signal?.aborted)
      return Promise.resolve(errorResult(this.opts.name, 'aborted', t0, { sessionId }));
    return this.runTurn(conn, sessionId, request, t0);
  }

  steer(): SteerResult {
    // ACP v1 has no way to add to a running prompt; the caller queues the text as a follow-up.
    return this.current ? { type: 'unsupported' } : { type: 'idle' };
  }

  async cancel(): Promise<void> {
    const turn = this.current;
    if (!turn) return;
    turn.stop('aborted');
    await turn.done;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    const turn = this.current;
    // A running turn is cancelled first (other sessions on the process go on); one that does not
    // stop within the grace gives the process up (./acp-host.ts).
    if (turn) {
      turn.stop('aborted');
      await turn.done;
    }
    this.closed = true;
    // The last session on the process ends it (end of input, then TERM and KILL).
    await this.host.detach(this.link);
  }

  private async runTurn(conn: ClientConnection, sessionId: string, req: TurnRequest, t0: number) {
    const { methods } = loadedAcpSdk();
    const gathered = turnMessages(req.onProgress);
    const events = (evs: StreamEvent[]) => gathered.add(evs);
    const messages = gathered.messages;
    let stopped: 'timeout' | 'aborted' | undefined;
    let graceTimer: NodeJS.Timeout | undefined;
    const asking = turnAsking(this.opts.permission, req.approve);
    const stop = (why: 'timeout' | 'aborted') => {
      if (stopped || this.fault) return;
      stopped = why;
      asking.abort();
      void conn.agent.notify(methods.agent.session.cancel, { sessionId }).catch(() => {});
      graceTimer = setTimeout(
        () => this.breakWith({ type: 'unresponsive', what: 'session/cancel' }),
        this.opts.cancelGraceMs ?? CANCEL_GRACE_MS,
      );
    };
    const timer = turnTimer(req.timeoutMs, req.personWaitMs, () => stop('timeout'));
    const onAbort = () => stop('aborted');
    req.signal?.addEventListener('abort', onAbort, { once: true });

    let resolveDone: (r: AgentResult) => void = () => {};
    const done = new Promise<AgentResult>((r) => {
      resolveDone = r;
    });
    const reducer = updateReducer();
    const progress = progressTap(acpProgress, req.onEvent);
    const turn: Turn = { sessionId, reducer, events, progress, stop, done, asking, activity: 0 };
    this.current = turn;

    const r = await this.settle(
      conn.agent.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: req.prompt }],
      }),
      0,
    );
    timer.clear();
    clearTimeout(graceTimer);
    req.signal?.removeEventListener('abort', onAbort);
    events(reducer.end());

    // claude-agent-acp answers the first prompt after a cancel with an instant, empty end_turn: the
    // cancelled run's own end, read late from a stream that still holds this prompt's real answer,
    // so every later reply would come one message late. Sending the prompt again would only move
    // the lag one message on (the copy is answered too, and read by the next prompt). So an empty
    // end right after a stop, with no sign of the model at work, breaks this session: the pool
    // resumes it in a fresh `session/load` (a new run of the agent's own stream) and runs the
    // message again, once; the process that holds the stale stream is given up (./acp-host.ts).
    const stale =
      this.afterCancel &&
      !stopped &&
      turn.activity === 0 &&
      r.type === 'value' &&
      r.value.stopReason === 'end_turn';
    this.afterCancel = stopped !== undefined;
    let result: AgentResult;
    if (stale) {
      const detail = 'an empty end right after a stop (a stale answer); the session is loaded again';
      this.opts.log?.debug({ agent: this.opts.name }, `ACP: ${detail}`);
      this.breakWith({ type: 'stale', detail });
      result = errorResult(this.opts.name, 'exit', t0, { sessionId, detail });
    } else if (r.type === 'value' && !stopped && r.value.stopReason !== 'cancelled') {
      // A turn that ended normally is a reply even when empty (a turn of tool calls only), as the
      // cold parsers treat a finished run; other stop reasons without text say nothing true.
      result =
        messages.length || r.value.stopReason === 'end_turn'
          ? { ...okResult(messages, { sessionId, truncated: false }), durationMs: ms(t0) }
          : errorResult(this.opts.name, 'unparseable', t0, {
              sessionId,
              detail: `the turn ended (${r.value.stopReason}) without a reply`,
            });
    } else if (r.type === 'value' || (stopped && r.type === 'rejected')) {
      // Stopped in time: the process and the session stay for the next turn.
      result = errorResult(this.opts.name, stopped ?? 'aborted', t0, { sessionId });
    } else {
      result = { ...this.failure(r, t0, 'session/prompt', 'exit', stopped), sessionId };
    }
    this.current = undefined;
    asking.abort();
    this.host.turnEnded();
    resolveDone(result);
    return result;
  }

  /** Under `ask` this waits for the person; the turn's stop cancels the wait. Outside a turn the policy answers. */
  private async onPermission(params: RequestPermissionRequest) {
    const asking = this.current?.asking ?? { policy: this.opts.permission };
    return answerPermission(params, await decide(acpQuestion(params, this.opts.process.cwd), asking));
  }

  private onUpdate(n: SessionNotification): void {
    this.lastUpdateAt = performance.now();
    const turn = this.current;
    // Updates outside a turn (the history `session/load` replays) are not this turn's reply.
    if (!turn || n.sessionId !== turn.sessionId) return;
    if (ACTIVITY.has(n.update.sessionUpdate)) turn.activity++;
    turn.events(turn.reducer.update(n.update));
    turn.progress(n.update);
  }

  /** This session cannot be trusted any more: broken, and the process given up as ./acp-host.ts decides. */
  private breakWith(fault: DriverFault): void {
    if (this.fault) return;
    this.trouble.raise(fault);
    this.host.giveUp(this.link);
  }

  /** The process's first fault, if any: from then on it is broken. */
  private get fault(): DriverFault | undefined {
    return this.trouble.fault;
  }

  private set fault(f: DriverFault | undefined) {
    this.trouble.fault = f;
  }

  private settle<T>(p: Promise<T>, timeoutMs: number): Promise<Settled<T>> {
    return this.trouble.settle(p, timeoutMs);
  }

  /** Waits until the agent has sent no update for a moment (the end of a replay). */
  private async quiet(sessionId: string): Promise<void> {
    const until = performance.now() + REPLAY_MAX_MS;
    this.lastUpdateAt = Math.max(this.lastUpdateAt, performance.now());
    while (!this.fault && this.sessionId === sessionId && performance.now() < until) {
      const wait = this.lastUpdateAt + REPLAY_QUIET_MS - performance.now();
      if (wait <= 0) return;
      await delay(wait);
    }
  }

  private failure(
    r: Exclude<Settled<unknown>, { type: 'value' }>,
    t0: number,
    what: string,
    rejectedKind: ErrorResult['kind'],
    stopped?: 'timeout' | 'aborted',
  ): ErrorResult {
    const name = this.opts.name;
    if (r.type === 'timeout') {
      this.breakWith({ type: 'unresponsive', what });
      return errorResult(name, 'timeout', t0, { detail: `no answer to ${what}` });
    }
    if (r.type === 'fault') {
      const f = r.fault;
      const exit = f.type === 'exited' ? { exitCode: f.exitCode, signal: f.signal } : {};
      const stderr = this.host.stderrTail();
      const detail = f.type === 'exited' && stderr.trim() ? stderr : faultDetail(f);
      // A turn we stopped that then had to be killed still ends as the stop the user asked for.
      return errorResult(name, stopped ?? faultKind(f), t0, { detail, ...exit });
    }
    const e = r.error as RequestError;
    const text = [e.message, typeof e.data === 'string' ? e.data : JSON.stringify(e.data ?? '')].join(' ');
    return errorResult(name, stopped ?? rejectionKind(text, rejectedKind), t0, { detail: e.message });
  }

  private unusable(t0: number): ErrorResult {
    return unusableResult(this.opts.name, this.fault, t0);
  }

  private startTimeoutMs(): number {
    return this.opts.startTimeoutMs ?? START_TIMEOUT_MS;
  }
}

const ms = (t0: number) => Math.round(performance.now() - t0);
const delay = (n: number) => new Promise<undefined>((r) => setTimeout(() => r(undefined), n).unref());
