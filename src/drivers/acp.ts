// The ACP driver: one live agent process speaking the Agent Client Protocol v1 over stdio
// (`gemini --acp`, `opencode acp`, or any agent a user brings), through the official library.
// The library does the JSON-RPC; this file keeps the promises a relay needs around it: a turn
// always ends (timeout → `session/cancel` → kill), every failure is an error result, and a process
// that died or stopped speaking the protocol is marked broken so the pool replaces it.
import type {
  AgentCapabilities,
  ClientConnection,
  McpServerStdio,
  RequestError,
  SessionNotification,
} from '@agentclientprotocol/sdk';
import { okResult } from '../agents/common.js';
import type { AgentResult, SessionRef, StreamEvent } from '../agents/types.js';
import type { Logger } from '../log.js';
import { type GroupGuard, type StdioChild, startStdioChild } from '../runner/spawn-stdio.js';
import { acpQuestion, answerPermission } from './acp-permission.js';
import { acpSdk, isAcpRequestError, loadedAcpSdk } from './acp-sdk.js';
import { monitoredStream, type Tap } from './acp-transport.js';
import { type UpdateReducer, updateReducer } from './acp-updates.js';
import { type Asking, decide, turnAsking } from './approval.js';
import { type ErrorResult, errorResult, faultDetail, faultKind, rejectionKind } from './results.js';
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
const KILL_GRACE_MS = 2_000;
// After session/load: no update for this long means the replayed history is over (capped).
const REPLAY_QUIET_MS = 150;
const REPLAY_MAX_MS = 5_000;

interface Turn {
  sessionId: string;
  reducer: UpdateReducer;
  events: (events: StreamEvent[]) => void;
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
  /** Debug notes: a harmless misfit dropped, a stale end re-sent. */
  log?: Logger;
}

export function acpDriver(options: AcpDriverOptions): SessionDriver {
  return new AcpDriver(options);
}

class AcpDriver implements SessionDriver {
  private child: StdioChild | undefined;
  private conn: ClientConnection | undefined;
  private capabilities: AgentCapabilities | undefined;
  private sessionId: string | undefined;
  private current: Turn | undefined;
  private readonly trouble = new Trouble(isAcpRequestError, () => this.closed);
  private closed = false;
  private lastUpdateAt = 0;
  /** The last turn was cancelled (/stop, timeout): the next one may get that cancel's stale end. */
  private afterCancel = false;

  constructor(private readonly opts: AcpDriverOptions) {}

  state(): DriverState {
    if (this.closed) return { type: 'closed' };
    if (this.fault) return { type: 'broken', fault: this.fault };
    if (this.current) return { type: 'busy', sessionId: this.current.sessionId };
    return this.sessionId ? { type: 'idle', sessionId: this.sessionId } : { type: 'idle' };
  }

  pid(): number | undefined {
    return this.fault || this.closed ? undefined : this.child?.pid;
  }

  async open(session: SessionRef): Promise<OpenResult> {
    const t0 = performance.now();
    if (this.closed || this.fault) return this.unusable(t0);
    if (this.current) return errorResult(this.opts.name, 'exit', t0, { detail: 'a turn is running' });
    const started = await this.start(t0);
    if (started) return started;
    const { methods } = loadedAcpSdk();
    const cwd = this.opts.process.cwd;
    const mcpServers = this.opts.mcpServers ?? [];
    const ctx = (this.conn as ClientConnection).agent;
    if (session.type === 'resume') {
      if (!this.capabilities?.loadSession) {
        return errorResult(this.opts.name, 'session_not_found', t0, {
          detail: 'the agent cannot load sessions (no loadSession capability)',
        });
      }
      const r = await this.settle(
        ctx.request(methods.agent.session.load, { sessionId: session.id, cwd, mcpServers }),
        this.startTimeoutMs(),
      );
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
    if (!sessionId || !this.conn) {
      return Promise.resolve(errorResult(this.opts.name, 'exit', t0, { detail: 'no session is open' }));
    }
    if (request.signal?.aborted)
      return Promise.resolve(errorResult(this.opts.name, 'aborted', t0, { sessionId }));
    return this.runTurn(this.conn, sessionId, request, t0);
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
    this.closed = true;
    const turn = this.current;
    if (turn) turn.stop('aborted');
    this.conn?.close();
    const child = this.child;
    if (!child) return;
    // End of input is how a stdio agent learns its client is gone; TERM and KILL if it lingers.
    child.stdin.end();
    const quick = await Promise.race([child.exited, delay(KILL_GRACE_MS)]);
    if (!quick) await child.stop(KILL_GRACE_MS);
    if (turn) await turn.done;
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
    const turn: Turn = { sessionId, reducer: updateReducer(), events, stop, done, asking, activity: 0 };
    this.current = turn;
    const reducer = turn.reducer;

    const prompt = () =>
      this.settle(
        conn.agent.request(methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: 'text', text: req.prompt }],
        }),
        0,
      );
    let r = await prompt();
    // claude-agent-acp answers the first prompt after a cancel with an instant, empty end_turn (the
    // cancelled run's own end, read late), which would make every later reply one message late.
    // An empty end right after a cancel, with no sign of the model at work, is taken for that and
    // the prompt sent once more.
    const stale = this.afterCancel && r.type === 'value' && r.value.stopReason === 'end_turn';
    if (stale && !stopped && turn.activity === 0) {
      this.opts.log?.debug(
        { agent: this.opts.name },
        'ACP: an empty end right after a cancel; prompt sent again',
      );
      r = await prompt();
    }
    this.afterCancel = stopped !== undefined;
    timer.clear();
    clearTimeout(graceTimer);
    req.signal?.removeEventListener('abort', onAbort);
    events(reducer.end());

    let result: AgentResult;
    if (r.type === 'value' && !stopped && r.value.stopReason !== 'cancelled') {
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
    if (this.fault) await this.child?.stop(KILL_GRACE_MS);
    resolveDone(result);
    return result;
  }

  /** Starts the process and says hello; undefined when ready, else the error that stopped it. */
  private async start(t0: number): Promise<ErrorResult | undefined> {
    if (this.conn) return undefined;
    const { client, methods, PROTOCOL_VERSION } = await acpSdk();
    const [file, ...args] = this.opts.process.argv;
    if (!file) return errorResult(this.opts.name, 'exit', t0, { detail: 'no agent command configured' });
    const s = await startStdioChild({
      file,
      args,
      cwd: this.opts.process.cwd,
      env: this.opts.process.env,
      ...(this.opts.guard ? { guard: this.opts.guard } : {}),
    });
    if (s.type === 'not_found') {
      this.fault = { type: 'start_failed', detail: s.message };
      return errorResult(this.opts.name, 'not_installed', t0, { detail: `"${file}" was not found on PATH` });
    }
    if (s.type === 'spawn_failed') {
      this.fault = { type: 'start_failed', detail: s.message };
      return errorResult(this.opts.name, 'exit', t0, { detail: s.message });
    }
    const child = s.child;
    this.child = child;
    void child.exited.then((e) => this.breakWith({ type: 'exited', exitCode: e.exitCode, signal: e.signal }));
    const { stream } = monitoredStream(
      child.stdout,
      child.stdin,
      (f) => this.breakWith(f),
      undefined,
      this.opts.tap,
      (what) => this.opts.log?.debug({ agent: this.opts.name, what }, 'ACP: dropped a harmless misfit'),
    );
    this.conn = client({ name: 'agentwire' })
      // Under `ask` this waits for the person; the turn's stop cancels the wait. A request outside
      // a turn has no Approver: the policy answers it (under `ask`, a deny).
      .onRequest(methods.client.session.requestPermission, async ({ params }) => {
        const asking = this.current?.asking ?? { policy: this.opts.permission };
        return answerPermission(params, await decide(acpQuestion(params, this.opts.process.cwd), asking));
      })
      .onNotification(methods.client.session.update, ({ params }) => this.onUpdate(params))
      .connect(stream);
    const r = await this.settle(
      this.conn.agent.request(methods.agent.initialize, {
        protocolVersion: PROTOCOL_VERSION,
        // No file system or terminal of ours: the agent uses its own tools in its own folder.
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        clientInfo: { name: 'agentwire', version: '0' },
      }),
      this.startTimeoutMs(),
    );
    if (r.type === 'value') {
      this.capabilities = r.value.agentCapabilities;
      return undefined;
    }
    return this.failure(r, t0, 'initialize', 'exit');
  }

  private onUpdate(n: SessionNotification): void {
    this.lastUpdateAt = performance.now();
    const turn = this.current;
    // Updates outside a turn (the history `session/load` replays) are not this turn's reply.
    if (!turn || n.sessionId !== turn.sessionId) return;
    if (ACTIVITY.has(n.update.sessionUpdate)) turn.activity++;
    turn.events(turn.reducer.update(n.update));
  }

  /** Marks the process broken (once) and wakes whatever waits on it. */
  private breakWith(fault: DriverFault): void {
    if (this.closed && fault.type === 'exited') return;
    this.trouble.raise(fault);
    if (fault.type !== 'exited') void this.child?.stop(KILL_GRACE_MS);
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
      const stderr = this.child?.stderrTail() ?? '';
      const detail = f.type === 'exited' && stderr.trim() ? stderr : faultDetail(f);
      // A turn we stopped that then had to be killed still ends as the stop the user asked for.
      return errorResult(name, stopped ?? faultKind(f), t0, { detail, ...exit });
    }
    const e = r.error as RequestError;
    const text = [e.message, typeof e.data === 'string' ? e.data : JSON.stringify(e.data ?? '')].join(' ');
    return errorResult(name, stopped ?? rejectionKind(text, rejectedKind), t0, { detail: e.message });
  }

  private unusable(t0: number): ErrorResult {
    const detail = this.fault ? faultDetail(this.fault) : 'closed';
    return errorResult(this.opts.name, this.fault ? faultKind(this.fault) : 'exit', t0, { detail });
  }

  private startTimeoutMs(): number {
    return this.opts.startTimeoutMs ?? START_TIMEOUT_MS;
  }
}

const ms = (t0: number) => Math.round(performance.now() - t0);
const delay = (n: number) => new Promise<undefined>((r) => setTimeout(() => r(undefined), n).unref());
