// The ACP driver: one live agent process speaking the Agent Client Protocol v1 over stdio
// (`gemini --acp`, `opencode acp`, or any agent a user brings), through the official library.
// The library does the JSON-RPC; this file keeps the promises a relay needs around it: a turn
// always ends (timeout → `session/cancel` → kill), every failure is an error result, and a process
// that died or stopped speaking the protocol is marked broken so the pool replaces it. This is one
// session; the process is its host (./acp-host.ts), which other chats' sessions may share.
import type {
  ClientConnection,
  McpServerStdio,
  RequestPermissionRequest,
  SessionNotification,
} from '@agentclientprotocol/sdk';
import type { AgentResult, SessionRef, StreamEvent } from '../agents/types.js';
import { nextTurn } from '../core/next-turn.js';
import { progressTap } from '../core/progress-event.js';
import type { Logger } from '../log.js';
import type { GroupGuard } from '../runner/spawn-stdio.js';
import { AcpHost, type AcpLink } from './acp-host.js';
import { acpQuestion, answerPermission } from './acp-permission.js';
import { acpRejectionText, isAcpRequestError, loadedAcpSdk } from './acp-sdk.js';
import type { Tap } from './acp-transport.js';
import { ACTIVITY, isStaleEnd, promptResult, type Turn } from './acp-turn.js';
import { updateReducer } from './acp-updates.js';
import { decide, turnAsking } from './approval.js';
import { HostedSession } from './hosted-session.js';
import type { HostedDriver } from './hosts.js';
import { acpProgress } from './progress-map.js';
import { errorResult } from './results.js';
import { turnMessages } from './turn-messages.js';
import { turnTimer } from './turn-timer.js';
import type { DriverOptions, OpenResult, SteerResult, TurnRequest } from './types.js';
import { delay } from './warm-child.js';

// After session/load: no update for this long means the replayed history is over (capped). 150 ms
// once let a replay sent a moment late, by an agent on a loaded machine, into the next turn's reply.
const REPLAY_QUIET_MS = 500;
const REPLAY_MAX_MS = 5_000;

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

class AcpDriver extends HostedSession<AcpLink, ClientConnection, Turn> {
  protected readonly host: AcpHost;
  protected readonly link: AcpLink = {
    // While `session/load` runs, the replay it sends is routed here too (and ignored: no turn runs).
    sessionId: () => this.sessionId ?? this.loading,
    busy: () => this.current !== undefined,
    onUpdate: (n) => this.onUpdate(n),
    onPermission: (p) => this.onPermission(p),
    onFault: (f) => this.trouble.raise(f),
  };
  private lastUpdateAt = 0;
  private loading: string | undefined;
  /** The last turn was stopped (/stop, timeout): the next one may get that stop's stale end. */
  private afterCancel = false;

  constructor(protected override readonly opts: AcpDriverOptions) {
    super(opts, isAcpRequestError, acpRejectionText);
    this.host = opts.host ?? acpHost(opts);
    this.host.attach(this.link);
  }

  async open(session: SessionRef): Promise<OpenResult> {
    const t0 = performance.now();
    const ready = await this.connect(t0);
    if (ready.type !== 'ready') return ready;
    const { methods } = loadedAcpSdk();
    // The session's own folder and tools: both are per session in ACP, not the process's.
    const cwd = this.opts.process.cwd;
    const mcpServers = this.opts.mcpServers ?? [];
    const ctx = ready.conn.agent;
    if (session.type === 'new') {
      const request = ctx.request(methods.agent.session.new, { cwd, mcpServers });
      return this.establish(request, (v) => v.sessionId, t0, 'session/new', 'exit');
    }
    if (!this.host.loadsSessions()) {
      return errorResult(this.opts.name, 'session_not_found', t0, {
        detail: 'the agent cannot load sessions (no loadSession capability)',
      });
    }
    this.loading = session.id;
    const request = ctx.request(methods.agent.session.load, { sessionId: session.id, cwd, mcpServers });
    const r = await this.establish(request, () => session.id, t0, 'session/load', 'session_not_found');
    this.loading = undefined;
    // gemini 0.61 replays the history after its answer to session/load, not before it as the
    // protocol asks; a turn started at once would take the old reply for its own.
    if (r.type === 'ok') await this.quiet(session.id);
    return r;
  }

  steer(): SteerResult {
    // ACP v1 has no way to add to a running prompt; the caller queues the text as a follow-up.
    return this.current ? { type: 'unsupported' } : { type: 'idle' };
  }

  protected async runTurn(conn: ClientConnection, sessionId: string, req: TurnRequest, t0: number) {
    const { methods } = loadedAcpSdk();
    const gathered = turnMessages(req.onProgress);
    const events = (evs: StreamEvent[]) => gathered.add(evs);
    let stopped: 'timeout' | 'aborted' | undefined;
    let graceTimer: NodeJS.Timeout | undefined;
    const asking = turnAsking(this.opts.permission, req.approve);
    const stop = (why: 'timeout' | 'aborted') => {
      if (stopped || this.fault) return;
      stopped = why;
      asking.abort();
      void conn.agent.notify(methods.agent.session.cancel, { sessionId }).catch(() => {});
      graceTimer = this.graceTimer('session/cancel');
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

    // The process that holds a stale stream is given up (./acp-host.ts); see ./acp-turn.ts.
    const stale = isStaleEnd(this.afterCancel, stopped, turn.activity, r);
    this.afterCancel = stopped !== undefined;
    let result: AgentResult;
    if (stale) {
      const detail = 'an empty end right after a stop (a stale answer); the session is loaded again';
      this.opts.log?.debug({ agent: this.opts.name }, `ACP: ${detail}`);
      this.breakWith({ type: 'stale', detail });
      result = errorResult(this.opts.name, 'exit', t0, { sessionId, detail });
    } else {
      const messages = gathered.messages;
      result = promptResult(this.opts.name, r, { sessionId, messages, stopped, t0 }, (f) =>
        this.failure(f, t0, 'session/prompt', 'exit', stopped),
      );
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

  /** Waits until the agent has sent no update for a moment (the end of a replay). */
  private async quiet(sessionId: string): Promise<void> {
    const until = performance.now() + REPLAY_MAX_MS;
    this.lastUpdateAt = Math.max(this.lastUpdateAt, performance.now());
    while (!this.fault && this.sessionId === sessionId && performance.now() < until) {
      const wait = this.lastUpdateAt + REPLAY_QUIET_MS - performance.now();
      if (wait > 0) {
        await delay(wait);
        continue;
      }
      // A loop held past the window runs its timers before it reads: the replay may already be
      // in the pipe, unread, when the timer says all is quiet. Quiet only if the next read is too.
      const seen = this.lastUpdateAt;
      // Two turns: the first reads, the second lets the library hand on what it parsed.
      await nextTurn();
      await nextTurn();
      if (this.lastUpdateAt === seen) return;
    }
  }
}
