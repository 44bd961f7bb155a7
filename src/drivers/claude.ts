// The claude stream-json driver: one live `claude -p --input-format stream-json --output-format
// stream-json --verbose` process (the cold flags plus streamed input; claude-control.ts), one user
// message per turn on stdin. Each turn prints `system/init`, the assistant and user events, then
// one `result`; the turn's lines go through the cold parser (src/agents/claude.ts), so a warm turn
// ends in exactly the AgentResult a cold run of the same output would. Around it, the promises a
// relay needs: a turn always ends (timeout or /stop → `interrupt` control request → kill), every
// failure is an error result, and a process that died or stopped speaking the protocol is broken.
import { randomUUID } from 'node:crypto';
import { claudeProgress, reducer as claudeReducer } from '../agents/claude.js';
import type { AgentResult, SessionRef } from '../agents/types.js';
import { progressTap } from '../core/progress-event.js';
import type { GroupGuard, StdioChild } from '../runner/spawn-stdio.js';
import { decide, oneRequest, turnAsking } from './approval.js';
import { answerControl, claudeQuestion, claudeWarmArgv } from './claude-control.js';
import { faultResult, keepLine, type Phase, turnResult } from './claude-phase.js';
import { type ClaudeTransport, claudeTransport, type Json, type Tap } from './claude-transport.js';
import { type ErrorResult, errorResult } from './results.js';
import { turnMessages } from './turn-messages.js';
import { turnTimer } from './turn-timer.js';
import type {
  DriverFault,
  DriverOptions,
  OpenResult,
  SessionDriver,
  SteerResult,
  TurnRequest,
} from './types.js';
import {
  CANCEL_GRACE_MS,
  delay,
  endChild,
  KILL_GRACE_MS,
  START_TIMEOUT_MS,
  startWarmChild,
} from './warm-child.js';
import { WarmDriver } from './warm-driver.js';

// After the process exited, how long stdout may take to deliver its last lines (the result that
// says why: a missing session prints one and exits 1 before reading any input).
const DRAIN_MS = 1_000;

export interface ClaudeDriverOptions extends DriverOptions {
  /** Passed as in cold mode (`--model`, `--effort`, `--append-system-prompt`). */
  model?: string;
  thinking?: string;
  systemText?: string;
  guard?: GroupGuard;
  /** Sees every protocol message both ways (fixture captures). */
  tap?: Tap;
  maxMessageBytes?: number;
  /** After the cold flags: agentwire's MCP server for this process (warm-tools.ts). */
  toolArgs?: readonly string[];
  /** `false`: as cold, `--disallowedTools WebFetch,WebSearch`. */
  networkTools?: boolean;
}

/** How a control request of ours ended. */
type Answer = { type: 'response'; response: Json } | { type: 'fault'; fault: DriverFault };

export function claudeDriver(options: ClaudeDriverOptions): SessionDriver {
  return new ClaudeDriver(options);
}

class ClaudeDriver extends WarmDriver<ClaudeTransport, ClaudeDriverOptions> implements SessionDriver {
  private child: StdioChild | undefined;
  private transport: ClaudeTransport | undefined;
  private sessionId: string | undefined;
  private phase: Phase | undefined;
  protected fault: DriverFault | undefined;
  /** Set by the first open, before its process exists, so a second open is refused. */
  private opened = false;
  private nextId = 0;
  private pending = new Map<string, (answer: Answer) => void>();
  /** The CLI's requests still waiting for an answer, by request_id (it may withdraw one). */
  private asks = new Map<string, { abort(): void }>();
  private ended: Promise<void> = Promise.resolve();

  protected openSession(): string | undefined {
    return this.sessionId;
  }

  protected runningTurn(): NonNullable<Phase['turn']> | undefined {
    return this.phase?.turn;
  }

  /** The start-up's phase counts too: a turn's lines would be taken for the start-up's. */
  protected override turnBusy(): boolean {
    return !!this.phase;
  }

  protected connection(): ClaudeTransport | undefined {
    return this.transport;
  }

  protected livePid(): number | undefined {
    return this.child?.pid;
  }

  async open(session: SessionRef): Promise<OpenResult> {
    const t0 = performance.now();
    if (this.closed || this.fault) return this.unusable(t0);
    // The session is fixed by the argv: one process serves one session.
    if (this.opened) return errorResult(this.opts.name, 'exit', t0, { detail: 'a session is already open' });
    const id = session.type === 'resume' ? session.id : (session.id ?? randomUUID());
    let argv: string[];
    try {
      argv = claudeWarmArgv(
        {
          session: session.type === 'resume' ? session : { type: 'new', id },
          command: this.opts.process.argv,
          cwd: this.opts.process.cwd,
          stateDir: '',
          ...(this.opts.model ? { model: this.opts.model } : {}),
          ...(this.opts.thinking ? { thinking: this.opts.thinking } : {}),
          ...(this.opts.systemText ? { systemText: this.opts.systemText } : {}),
          ...(this.opts.networkTools === false && { networkTools: false }),
        },
        this.opts.permission,
      );
      argv.push(...(this.opts.toolArgs ?? []));
    } catch (e) {
      return errorResult(this.opts.name, 'exit', t0, { detail: (e as Error).message });
    }
    // Set before the start is awaited, so a second open meanwhile is refused.
    this.opened = argv.length > 0;
    const s = await startWarmChild(this.opts, argv, t0);
    if (s.type === 'failed') return this.startFailed(s);
    this.connect(s.child);
    // The start-up phase gathers what the CLI prints before answering (a missing session's result).
    this.phase = { lines: [], bytes: 0, truncated: false };
    // `initialize` is the SDK's hello: its answer proves the process reads our stdin and speaks
    // the protocol; a resume of a session that does not exist exits 1 before answering.
    const r = await this.request({ subtype: 'initialize' }, this.opts.startTimeoutMs ?? START_TIMEOUT_MS);
    const phase = this.phase;
    this.phase = undefined;
    if (r.type === 'response' && r.response.subtype === 'success') {
      this.sessionId = id;
      return { type: 'ok', sessionId: id };
    }
    if (r.type === 'response') {
      this.breakWith({ type: 'start_failed', detail: String(r.response.error ?? 'initialize refused') });
      await s.child.stop(KILL_GRACE_MS);
      return errorResult(this.opts.name, 'exit', t0, { detail: `initialize: ${String(r.response.error)}` });
    }
    if (r.type === 'timeout') {
      this.breakWith({ type: 'unresponsive', what: 'initialize' });
      return errorResult(this.opts.name, 'timeout', t0, { detail: 'no answer to initialize' });
    }
    return faultResult(this.opts.name, this.child?.stderrTail() ?? '', r.fault, t0, phase, undefined);
  }

  protected runTurn(
    transport: ClaudeTransport,
    sessionId: string,
    request: TurnRequest,
    t0: number,
  ): Promise<AgentResult> {
    const gathered = turnMessages(request.onProgress);
    let graceTimer: NodeJS.Timeout | undefined;
    let finish: (r: AgentResult) => void = () => {};
    const done = new Promise<AgentResult>((r) => {
      finish = r;
    });
    const phase: Phase = { lines: [], bytes: 0, truncated: false };
    const turn: NonNullable<Phase['turn']> = {
      sessionId,
      live: claudeReducer(),
      add: (events) => gathered.add(events),
      progress: progressTap(claudeProgress, request.onEvent),
      stopped: undefined,
      t0,
      done,
      stop: (why) => {
        if (turn.stopped || this.fault || this.phase !== phase) return;
        turn.stopped = why;
        turn.asking.abort();
        // Answered at once; the turn then ends with a `result` (error_during_execution).
        void this.request({ subtype: 'interrupt' }, 0);
        graceTimer = setTimeout(
          () => this.breakWith({ type: 'unresponsive', what: 'interrupt' }),
          this.opts.cancelGraceMs ?? CANCEL_GRACE_MS,
        );
      },
      finish: (r) => finish(r),
      asking: turnAsking(this.opts.permission, request.approve),
    };
    phase.turn = turn;
    this.phase = phase;
    const timer = turnTimer(request.timeoutMs, request.personWaitMs, () => turn.stop('timeout'));
    const onAbort = () => turn.stop('aborted');
    request.signal?.addEventListener('abort', onAbort, { once: true });

    transport.send({
      type: 'user',
      message: { role: 'user', content: [{ type: 'text', text: request.prompt }] },
    });
    return done.then(async (result) => {
      timer.clear();
      clearTimeout(graceTimer);
      request.signal?.removeEventListener('abort', onAbort);
      if (this.phase === phase) this.phase = undefined;
      turn.asking.abort();
      if (this.fault) await this.child?.stop(KILL_GRACE_MS);
      return result;
    });
  }

  steer(): SteerResult {
    // Checked on 2.1.330: a user message written mid-turn joins the running turn at its next model
    // call, but one the turn ends without reaching (an interrupt) stays queued and later runs as a
    // turn of its own, whose result would be taken for the next turn's; nothing on the wire tells
    // the two apart. So nothing is written mid-turn and the caller queues the text as a follow-up.
    return this.phase?.turn ? { type: 'unsupported' } : { type: 'idle' };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    const turn = this.phase?.turn;
    if (turn) turn.stop('aborted');
    this.closed = true;
    const child = this.child;
    if (!child) return;
    // End of input ends an idle claude (exit 0); it first finishes a queued turn, so a running one
    // was interrupted above.
    const exit = await endChild(child, KILL_GRACE_MS);
    // A request still waiting (an open under way) will get no answer now: it ends with the exit.
    const waiters = [...this.pending.values()];
    this.pending.clear();
    for (const w of waiters) w({ type: 'fault', fault: { type: 'exited', ...exit } });
    if (turn) {
      // Nothing more will be read: a turn still waiting ends as the stop it was.
      turn.finish(
        errorResult(this.opts.name, turn.stopped ?? 'aborted', turn.t0, { sessionId: turn.sessionId }),
      );
      await turn.done;
    }
  }

  private connect(child: StdioChild): void {
    this.child = child;
    let endedResolve: () => void = () => {};
    this.ended = new Promise((r) => {
      endedResolve = r;
    });
    this.transport = claudeTransport(
      child.stdout,
      child.stdin,
      {
        onMessage: (msg, line) => this.onMessage(msg, line),
        onResponse: (id, response) => {
          const waiter = this.pending.get(id);
          this.pending.delete(id);
          waiter?.({ type: 'response', response });
        },
        onFault: (f) => this.breakWith(f),
        onEnd: () => endedResolve(),
      },
      this.opts.maxMessageBytes,
      this.opts.tap,
    );
    void child.exited.then(async (e) => {
      // stdout's last lines (a result that explains the exit) are read before the exit is judged.
      await Promise.race([this.ended, delay(DRAIN_MS)]);
      this.breakWith({ type: 'exited', exitCode: e.exitCode, signal: e.signal });
    });
  }

  private onMessage(msg: Json, line: string): void {
    if (msg.type === 'control_request') {
      const id = typeof msg.request_id === 'string' ? msg.request_id : '';
      const request = msg.request && typeof msg.request === 'object' ? (msg.request as Json) : {};
      // Under `ask` this waits for the person while the CLI waits for us; the turn's stop cancels it.
      // A request outside a turn has no Approver: the policy answers it (under `ask`, a deny).
      const asking = oneRequest(this.phase?.turn?.asking ?? { policy: this.opts.permission });
      this.asks.set(id, asking);
      void decide(claudeQuestion(request, this.opts.process.cwd), asking).then((verdict) => {
        asking.release();
        // Withdrawn by the CLI meanwhile: it reads no answer any more.
        if (this.asks.get(id) !== asking) return;
        this.asks.delete(id);
        this.transport?.send({ type: 'control_response', response: answerControl(id, request, verdict) });
      });
      return;
    }
    // The CLI withdrew a request of its own: a question still waiting for the person is dropped.
    if (msg.type === 'control_cancel_request') {
      const id = typeof msg.request_id === 'string' ? msg.request_id : '';
      const asking = this.asks.get(id);
      this.asks.delete(id);
      asking?.abort();
      return;
    }
    if (msg.type === 'keep_alive') return;
    const phase = this.phase;
    // Output outside a turn or the start-up (none is expected: nothing is written mid-turn) is not
    // any turn's reply.
    if (!phase) return;
    keepLine(phase, msg, line);
    const turn = phase.turn;
    if (!turn) return;
    turn.add(turn.live.event(msg));
    turn.progress(msg);
    if (msg.type === 'result') {
      turn.add(turn.live.event({ type: 'end' }));
      turn.finish(turnResult(this.opts.name, phase, turn));
    }
  }

  /** Sends a control request; `timeoutMs` 0 waits until its answer or a fault. */
  private request(request: Json, timeoutMs: number): Promise<Answer | { type: 'timeout' }> {
    const id = `aw-${++this.nextId}`;
    return new Promise((resolve) => {
      if (this.fault) {
        resolve({ type: 'fault', fault: this.fault });
        return;
      }
      const timer =
        timeoutMs > 0
          ? setTimeout(() => {
              this.pending.delete(id);
              resolve({ type: 'timeout' });
            }, timeoutMs)
          : undefined;
      this.pending.set(id, (answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
      this.transport?.request(id, request);
    });
  }

  /** Marks the process broken (once), ends what waits on it, and kills it unless it is gone. */
  private breakWith(fault: DriverFault): void {
    if (this.closed && fault.type === 'exited') return;
    if (!this.fault) this.fault = fault;
    const f = this.fault;
    const waiters = [...this.pending.values()];
    this.pending.clear();
    for (const w of waiters) w({ type: 'fault', fault: f });
    const phase = this.phase;
    if (phase?.turn) {
      const stderr = this.child?.stderrTail() ?? '';
      phase.turn.finish(faultResult(this.opts.name, stderr, f, phase.turn.t0, phase, phase.turn));
    }
    if (fault.type !== 'exited') void this.child?.stop(KILL_GRACE_MS);
  }

  private startFailed(s: { result: ErrorResult; fault?: DriverFault }): ErrorResult {
    if (s.fault) this.fault = s.fault;
    return s.result;
  }
}
