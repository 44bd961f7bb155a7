// The pi driver: one live `pi --mode rpc --session FILE` process, JSONL commands on stdin and
// events on stdout (src/drivers/pi-transport.ts). A session is a file, as for the cold runner
// (src/agents/pi.ts): its path is the session id, so a cold run and a warm process can take turns
// on the same conversation, and a new process resumes by being started on the same file. The
// events are those of `pi --mode json`, so the cold reducer reads them (`message_end` of an
// assistant message is a message; one that stopped for tool use is progress).
import { randomUUID } from 'node:crypto';
import { isAbsolute, join } from 'node:path';
import { assertSafeId, obj, str } from '../agents/common.js';
import { piProgress, piSpec } from '../agents/pi.js';
import type { AgentResult, SessionRef } from '../agents/types.js';
import { progressTap } from '../core/progress-event.js';
import type { GroupGuard, StdioChild } from '../runner/spawn-stdio.js';
import { type Asking, decide, turnAsking } from './approval.js';
import { type PiAnswer, PiWaits, piRefusal } from './pi-commands.js';
import { type PiJson, type PiTap, type PiTransport, piTransport } from './pi-transport.js';
import { handledResult, piFaultResult, piTally } from './pi-turn.js';
import { answerUi, piQuestion } from './pi-ui.js';
import { type ErrorResult, errorResult, rejectionKind } from './results.js';
import { turnTimer } from './turn-timer.js';
import type {
  DriverFault,
  DriverOptions,
  OpenResult,
  SessionDriver,
  SteerResult,
  TurnRequest,
} from './types.js';
import { CANCEL_GRACE_MS, endChild, KILL_GRACE_MS, START_TIMEOUT_MS, startWarmChild } from './warm-child.js';
import { WarmDriver } from './warm-driver.js';

// After pi took a prompt and is not running, how long before it counts as handled without a run.
const HANDLED_RECHECK_MS = 200;

export interface PiDriverOptions extends DriverOptions {
  /**
   * Where a new session's file goes when `open({type:'new'})` names none (the cold runner's
   * `<stateDir>/pi-sessions`). `process.argv` is the program and its fixed flags (`['pi']`, or
   * with `--model …`); the driver adds `--mode rpc --session FILE`.
   */
  sessionDir: string;
  guard?: GroupGuard;
  tap?: PiTap;
  maxRecordBytes?: number;
}

export function piDriver(options: PiDriverOptions): SessionDriver {
  return new PiDriver(options);
}

interface Turn {
  sessionId: string;
  stop: (why: 'timeout' | 'aborted') => void;
  event: (ev: PiJson) => void;
  fault: (f: DriverFault) => void;
  done: Promise<AgentResult>;
  /** Who answers this turn's dialogs; aborted by the stop, so a waiting one is dismissed. */
  asking: Asking & { abort(): void };
}

class PiDriver extends WarmDriver<PiTransport, PiDriverOptions> implements SessionDriver {
  private child: StdioChild | undefined;
  private rpc: PiTransport | undefined;
  private sessionFile: string | undefined;
  private current: Turn | undefined;
  protected fault: DriverFault | undefined;
  private cancelling = false;
  private readonly waits = new PiWaits();

  protected openSession(): string | undefined {
    return this.sessionFile;
  }

  protected runningTurn(): Turn | undefined {
    return this.current;
  }

  protected connection(): PiTransport | undefined {
    return this.rpc;
  }

  protected livePid(): number | undefined {
    return this.child?.pid;
  }

  async open(session: SessionRef): Promise<OpenResult> {
    const t0 = performance.now();
    const refused = this.openRefusal(t0);
    if (refused) return refused;
    // A stored file that is gone would be re-created empty by pi, which then answers as if
    // nothing happened: the chat must learn that its context was lost.
    if (session.type === 'resume' && piSpec.sessionGone?.(session.id)) {
      return errorResult(this.opts.name, 'session_not_found', t0, { detail: 'the session file is gone' });
    }
    // pi also finds a session by its UUID (or a prefix), but only at start: `switch_session`
    // takes a path and would start an empty session under that name.
    const byId = session.type === 'resume' && !isAbsolute(session.id);
    if (byId && !safeId(session.id)) {
      return errorResult(this.opts.name, 'session_not_found', t0, { detail: 'not a session file or id' });
    }
    if (byId && this.rpc) await this.retire();
    let file = session.id ?? join(this.opts.sessionDir, `${randomUUID()}.jsonl`);
    if (!this.rpc) {
      const started = await this.start(file, t0);
      if (started.type === 'error') return started;
      // From here on the session is named by its file, as every other one.
      if (byId && started.sessionFile) file = started.sessionFile;
    } else if (file !== this.sessionFile) {
      // `switch_session` opens a file, or starts one there when none exists yet.
      const r = await this.ask({ type: 'switch_session', sessionPath: file }, this.startTimeoutMs());
      const failed = this.refused(
        r,
        t0,
        'switch_session',
        session.type === 'resume' ? 'session_not_found' : 'exit',
      );
      if (failed) return failed;
      const data = r.type === 'response' && r.response.success ? obj(r.response.data) : undefined;
      if (data?.cancelled === true) {
        return errorResult(this.opts.name, 'exit', t0, { detail: 'an extension refused the session switch' });
      }
    }
    this.sessionFile = file;
    return { type: 'ok', sessionId: file };
  }

  steer(text: string): SteerResult {
    if (!this.current || !this.rpc) return { type: 'idle' };
    // A turn being stopped takes nothing more: the caller runs the text as the next turn.
    if (this.cancelling) return { type: 'unsupported' };
    // Delivered after the running tool calls, before the next model call. If the turn is stopped
    // first, pi keeps the text queued and sends it with the next prompt (see docs/warm-agents.md).
    this.rpc.send({ type: 'steer', message: text });
    return { type: 'steered' };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const turn = this.current;
    turn?.stop('aborted');
    const child = this.child;
    if (!child) return;
    // End of input makes an idle pi exit 0 (it saves as it goes).
    await endChild(child, KILL_GRACE_MS);
    // The exit wakes a running turn (as `exited`, reported as the stop it was).
    this.wake({ type: 'exited', exitCode: null, signal: null });
    if (turn) await turn.done;
  }

  protected runTurn(rpc: PiTransport, sessionId: string, req: TurnRequest, t0: number): Promise<AgentResult> {
    const tally = piTally(req.onProgress);
    const progress = progressTap(piProgress, req.onEvent);
    let stopped: 'timeout' | 'aborted' | undefined;
    let accepted = false;
    let abortPending = false;
    let retrying = false;
    let runs = 0;
    let sawStart = false;
    let finished = false;
    let graceTimer: NodeJS.Timeout | undefined;
    let resolveDone: (r: AgentResult) => void = () => {};
    const done = new Promise<AgentResult>((r) => {
      resolveDone = r;
    });

    const asking = turnAsking(this.opts.permission, req.approve);
    const finish = (result: AgentResult) => {
      if (finished) return;
      finished = true;
      timer.clear();
      clearTimeout(graceTimer);
      req.signal?.removeEventListener('abort', onAbort);
      this.current = undefined;
      this.cancelling = false;
      asking.abort();
      const end = this.fault ? this.child?.stop(KILL_GRACE_MS) : undefined;
      void Promise.resolve(end).then(() => resolveDone(result));
    };
    const ended = () =>
      finish(
        stopped
          ? errorResult(this.opts.name, stopped, t0, { sessionId })
          : tally.result(this.opts.name, sessionId, t0),
      );
    // pi answers an abort once the run has stopped (after its `agent_end`), also when it was
    // waiting to retry and no further `agent_end` comes.
    const sendAbort = () => rpc.send({ type: 'abort' }, () => ended());
    const stop = (why: 'timeout' | 'aborted') => {
      if (stopped || finished || this.fault) return;
      stopped = why;
      this.cancelling = true;
      asking.abort();
      // An abort before pi accepted the prompt could land before the prompt starts, which then
      // runs unstopped: it waits for the acceptance. The grace period runs from now either way.
      if (accepted) sendAbort();
      else abortPending = true;
      graceTimer = setTimeout(
        () => this.breakWith({ type: 'unresponsive', what: accepted ? 'abort' : 'prompt' }),
        this.opts.cancelGraceMs ?? CANCEL_GRACE_MS,
      );
    };
    const event = (ev: PiJson) => {
      if (finished) return;
      progress(ev);
      if (ev.type === 'message_end') {
        tally.message(ev);
      } else if (ev.type === 'agent_start') {
        sawStart = true;
      } else if (ev.type === 'auto_retry_start') {
        retrying = true;
      } else if (ev.type === 'agent_end') {
        if (stopped || tally.last()?.stopReason !== 'error') return ended();
        // A retryable error is followed, in the same tick inside pi, by `auto_retry_start`; an
        // answer to a command sent now comes after it. Until then the turn may go on.
        retrying = false;
        const run = ++runs;
        rpc.send({ type: 'get_state' }, () => {
          if (!retrying && run === runs) ended();
        });
      }
    };
    const fault = (f: DriverFault) =>
      finish(piFaultResult(this.opts.name, this.child?.stderrTail() ?? '', f, t0, sessionId, stopped));

    const timer = turnTimer(req.timeoutMs, req.personWaitMs, () => stop('timeout'));
    const onAbort = () => stop('aborted');
    req.signal?.addEventListener('abort', onAbort, { once: true });
    this.current = { sessionId, stop, event, fault, done, asking };

    rpc.send({ type: 'prompt', message: req.prompt }, (r) => {
      if (finished) return;
      if (!r.success) {
        // Refused before it started (no model, no API key, …): nothing runs, the process is fine.
        return finish(
          errorResult(this.opts.name, stopped ?? rejectionKind(r.error, 'exit'), t0, {
            sessionId,
            detail: r.error,
          }),
        );
      }
      accepted = true;
      if (abortPending) return sendAbort();
      // An extension command (`/name`) or an extension's input handler can take the prompt
      // without starting a run: then no `agent_end` will come. pi starts a run in the same tick as
      // it answers, so a `get_state` sent now sees it streaming; a run already over has put out
      // its `agent_start` by a moment later.
      const handledWithoutRun = (then: () => void) => {
        if (finished) return;
        rpc.send({ type: 'get_state' }, (r) => {
          if (!sawStart && r.success && obj(r.data)?.isStreaming === false) then();
        });
      };
      handledWithoutRun(() =>
        setTimeout(() => handledWithoutRun(() => finish(handledResult(sessionId, t0))), HANDLED_RECHECK_MS),
      );
    });
    return done;
  }

  /** Ends the live process without breaking the driver (to start another on a session id). */
  private async retire(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    this.rpc = undefined;
    this.sessionFile = undefined;
    if (child) await endChild(child, KILL_GRACE_MS);
  }

  /** Starts `pi --mode rpc --session FILE` and waits until it answers with its session file. */
  private async start(
    file: string,
    t0: number,
  ): Promise<{ type: 'ready'; sessionFile: string | undefined } | ErrorResult> {
    const command = this.opts.process.argv;
    // No program configured: nothing to add flags to (the start says so).
    const argv = command.length ? [...command, '--mode', 'rpc', '--session', file] : [];
    const s = await startWarmChild(this.opts, argv, t0);
    if (s.type === 'failed') {
      this.fault = s.fault;
      return s.result;
    }
    const child = s.child;
    this.child = child;
    // A retired process's last words and exit are not the current one's.
    const mine = () => this.child === child;
    void child.exited.then((e) => {
      if (mine()) this.breakWith({ type: 'exited', exitCode: e.exitCode, signal: e.signal });
    });
    this.rpc = piTransport({
      input: child.stdout,
      output: child.stdin,
      onEvent: (ev) => {
        if (mine()) this.onEvent(ev);
      },
      onFault: (f) => {
        if (mine()) this.breakWith(f);
      },
      ...(this.opts.maxRecordBytes ? { maxRecordBytes: this.opts.maxRecordBytes } : {}),
      ...(this.opts.tap ? { tap: this.opts.tap } : {}),
    });
    // The first answer says pi is up (extensions loaded, session file opened).
    const r = await this.ask({ type: 'get_state' }, this.startTimeoutMs());
    const failed = this.refused(r, t0, 'get_state', 'exit');
    if (failed) return failed;
    const data = r.type === 'response' && r.response.success ? obj(r.response.data) : undefined;
    return { type: 'ready', sessionFile: str(data?.sessionFile) };
  }

  private onEvent(ev: PiJson): void {
    if (ev.type === 'extension_ui_request') {
      // Under `ask` a yes-or-no dialog waits for the person; the turn's stop dismisses it. One
      // outside a turn has no Approver: the policy answers it (under `ask`, a deny).
      const asking = this.current?.asking ?? { policy: this.opts.permission };
      void decide(piQuestion(ev), asking).then((verdict) => {
        const answer = answerUi(ev, verdict);
        if (answer) this.rpc?.reply(answer);
      });
      return;
    }
    // Events outside a turn (a compaction after it, queue updates) are nobody's reply.
    this.current?.event(ev);
  }

  /** Marks the process broken (once), ends the running turn and wakes whatever waits. */
  private breakWith(fault: DriverFault): void {
    if (this.closed && fault.type === 'exited') {
      this.wake(fault);
      return;
    }
    if (!this.fault) this.fault = fault;
    this.wake(this.fault);
    if (fault.type !== 'exited') void this.child?.stop(KILL_GRACE_MS);
  }

  private wake(fault: DriverFault): void {
    this.current?.fault(fault);
    this.waits.wake(fault);
  }

  private ask(command: PiJson, timeoutMs: number): Promise<PiAnswer> {
    return this.waits.ask(this.rpc, this.fault, command, timeoutMs);
  }

  /** The error an answer means, or undefined; no answer in time gives the process up. */
  private refused(r: PiAnswer, t0: number, what: string, kind: ErrorResult['kind']): ErrorResult | undefined {
    if (r.type === 'timeout') this.breakWith({ type: 'unresponsive', what });
    return piRefusal(this.opts.name, r, t0, what, kind, this.child?.stderrTail() ?? '');
  }

  private startTimeoutMs(): number {
    return this.opts.startTimeoutMs ?? START_TIMEOUT_MS;
  }
}

function safeId(id: string): boolean {
  try {
    assertSafeId(id, 'session id');
    return true;
  } catch {
    return false;
  }
}
