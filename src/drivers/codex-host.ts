// One live `codex app-server` and the threads on it. app-server serves any number of threads on one
// connection, and every notification and approval request names its thread, so each session (one
// chat's thread, ./codex.ts) gets only its own. The process is shared by up to the registry's cap of
// sessions started the same way (./hosts.ts) and closed when its last session closes.
//
// Faults: anything wrong with the process or its stream (it exited, garbage, a stray response)
// breaks every session on it, and the pool replaces each as it would a dead process. A session
// whose own turn will not stop breaks alone: the process is killed at once when no other session
// on it is mid-turn, else it takes no new sessions and is killed as soon as none is (the others'
// turns finish first), so one stuck chat never cuts another's answer short.
import { randomUUID } from 'node:crypto';
import { type GroupGuard, type StdioChild, startStdioChild } from '../runner/spawn-stdio.js';
import type { Tap } from './acp-transport.js';
import { decide } from './approval.js';
import { answerCodexRequest, codexQuestion } from './codex-permission.js';
import type { ServerNotification, ServerRequest } from './codex-protocol/index.js';
import { type Answer, type CodexPeer, codexPeer, RpcError } from './codex-rpc.js';
import { failureResult } from './codex-turn.js';
import type { SharedHost } from './hosts.js';
import { type ErrorResult, errorResult } from './results.js';
import { type Settled, Trouble } from './trouble.js';
import type { DriverFault, DriverProcess, PermissionPolicy } from './types.js';

const START_TIMEOUT_MS = 60_000;
const KILL_GRACE_MS = 2_000;

export interface CodexHostOptions {
  name: string;
  process: DriverProcess;
  /** Answers a request of no open thread (a session already closed): the policy alone. */
  permission: PermissionPolicy;
  startTimeoutMs?: number;
  guard?: GroupGuard;
  tap?: Tap;
}

/** One session as the host sees it. */
export interface CodexLink {
  threadId(): string | undefined;
  busy(): boolean;
  onNotification(n: ServerNotification): void;
  onRequest(req: ServerRequest): Answer | Promise<Answer>;
  /** The process is gone or unusable: the session is broken too. */
  onFault(f: DriverFault): void;
}

export class CodexHost implements SharedHost {
  readonly id = randomUUID();
  private child: StdioChild | undefined;
  private peer: CodexPeer | undefined;
  private starting: Promise<ErrorResult | undefined> | undefined;
  private readonly links = new Set<CodexLink>();
  private readonly trouble = new Trouble(
    (error) => error instanceof RpcError,
    () => this.closed,
  );
  private closed = false;
  /** A stuck session gave up on it: no new sessions, killed once no turn runs on it. */
  private retired = false;

  constructor(private readonly opts: CodexHostOptions) {}

  /** Sessions on it now mid-turn. */
  busySessions(): number {
    let n = 0;
    for (const l of this.links) if (l.busy()) n++;
    return n;
  }

  attached(): number {
    return this.links.size;
  }

  accepting(): boolean {
    return !this.closed && !this.retired && !this.trouble.fault;
  }

  attach(link: CodexLink): void {
    this.links.add(link);
    if (this.trouble.fault) link.onFault(this.trouble.fault);
  }

  /** The session closed: the process goes with its last one. */
  async detach(link: CodexLink): Promise<void> {
    if (!this.links.delete(link)) return;
    const threadId = link.threadId();
    if (this.links.size > 0) {
      // Lets codex unload the thread while the others go on. Awaited (briefly): a reopen of the same
      // thread (a /think change) must find it unloaded, so it resumes with its new settings.
      if (threadId && this.peer && !this.trouble.fault) {
        const bye = this.peer.request('thread/unsubscribe', { threadId }).catch(() => {});
        await Promise.race([bye, delay(KILL_GRACE_MS)]);
      }
      this.reap();
      return;
    }
    await this.shutdown();
  }

  pid(): number | undefined {
    return this.trouble.fault || this.closed ? undefined : this.child?.pid;
  }

  fault(): DriverFault | undefined {
    return this.trouble.fault;
  }

  stderrTail(): string {
    return this.child?.stderrTail() ?? '';
  }

  /** The connection, once started (`start` resolved undefined). */
  connection(): CodexPeer | undefined {
    return this.peer;
  }

  /** Starts the process and says hello, once for all its sessions; undefined when ready. */
  start(t0: number): Promise<ErrorResult | undefined> {
    this.starting ??= this.startNow(t0);
    return this.starting;
  }

  /**
   * One session's turn will not stop (or a request of its timed out): the process is given up. It
   * is killed now if no other session on it is mid-turn; else it takes no new sessions and no new
   * turns (its idle sessions break, and the pool reopens them elsewhere on their sessions), and is
   * killed as soon as the turns still running have ended.
   */
  giveUp(link: CodexLink): void {
    this.retired = true;
    this.reap(link);
  }

  /** A session's turn ended: a retired process loses that session, and is killed once none runs. */
  turnEnded(): void {
    // After the caller has looked at its result, so that turn is not taken for one the kill ended.
    setImmediate(() => this.reap());
  }

  private reap(giver?: CodexLink): void {
    if (!this.retired) return;
    const f: DriverFault = { type: 'unresponsive', what: 'a turn that would not stop' };
    const others = [...this.links].filter((l) => l !== giver);
    for (const l of others) if (!l.busy()) l.onFault(f);
    if (!others.some((l) => l.busy())) this.kill(f);
  }

  private kill(fault: DriverFault): void {
    this.raise(fault);
    void this.child?.stop(KILL_GRACE_MS);
  }

  private raise(fault: DriverFault): void {
    if (this.closed && fault.type === 'exited' && this.trouble.fault) return;
    const f = this.trouble.raise(fault);
    for (const l of this.links) l.onFault(f);
  }

  private async shutdown(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const child = this.child;
    if (!child) return;
    // End of input is how app-server learns its client is gone (it exits 0); TERM and KILL if not.
    child.stdin.end();
    const quick = await Promise.race([child.exited, delay(KILL_GRACE_MS)]);
    if (!quick) await child.stop(KILL_GRACE_MS);
    this.trouble.raise({ type: 'exited', exitCode: null, signal: null });
  }

  private async startNow(t0: number): Promise<ErrorResult | undefined> {
    const name = this.opts.name;
    const [file, ...args] = this.opts.process.argv;
    if (!file) return errorResult(name, 'exit', t0, { detail: 'no agent command configured' });
    const s = await startStdioChild({
      file,
      args,
      cwd: this.opts.process.cwd,
      env: this.opts.process.env,
      ...(this.opts.guard ? { guard: this.opts.guard } : {}),
      ...(this.opts.process.sandbox ? { sandbox: this.opts.process.sandbox } : {}),
    });
    if (s.type === 'not_found') {
      this.raise({ type: 'start_failed', detail: s.message });
      return errorResult(name, 'not_installed', t0, { detail: `"${file}" was not found on PATH` });
    }
    if (s.type === 'spawn_failed') {
      this.raise({ type: 'start_failed', detail: s.message });
      return errorResult(name, s.sandbox ? 'sandbox' : 'exit', t0, { detail: s.message });
    }
    const child = s.child;
    this.child = child;
    // Closed before it even started (the last session left meanwhile): it ends at once.
    if (this.closed) child.stdin.end();
    void child.exited.then((e) => this.raise({ type: 'exited', exitCode: e.exitCode, signal: e.signal }));
    this.peer = codexPeer(
      child.stdout,
      child.stdin,
      {
        onRequest: (req) => this.onRequest(req),
        onNotification: (n) => {
          const id = threadOf(n.params);
          for (const l of this.links) if (id !== undefined && l.threadId() === id) l.onNotification(n);
        },
        onFault: (f) => this.kill(f),
      },
      this.opts.tap,
    );
    const r = await this.settle(
      this.peer.request('initialize', {
        clientInfo: { name: 'agentwire', title: null, version: '0' },
        capabilities: null,
      }),
      this.opts.startTimeoutMs ?? START_TIMEOUT_MS,
    );
    if (r.type !== 'value') {
      if (r.type === 'timeout') this.kill({ type: 'unresponsive', what: 'initialize' });
      return failureResult(name, this.stderrTail(), r, t0, 'initialize', 'exit');
    }
    this.peer.notifyInitialized();
    return undefined;
  }

  private onRequest(req: ServerRequest): Answer | Promise<Answer> {
    const id = threadOf(req.params);
    const link = id === undefined ? undefined : [...this.links].find((l) => l.threadId() === id);
    if (link) return link.onRequest(req);
    // No thread of an open session (or none named): nobody can be asked, the policy answers.
    return decide(codexQuestion(req, undefined), { policy: this.opts.permission }).then((v) =>
      answerCodexRequest(req, v),
    );
  }

  private settle<T>(p: Promise<T>, timeoutMs: number): Promise<Settled<T>> {
    return this.trouble.settle(p, timeoutMs);
  }
}

/** The thread a message is about: v2 names it `threadId`, the older approval requests `conversationId`. */
function threadOf(params: unknown): string | undefined {
  if (!params || typeof params !== 'object') return undefined;
  const p = params as { threadId?: unknown; conversationId?: unknown };
  const id = p.threadId ?? p.conversationId;
  return typeof id === 'string' ? id : undefined;
}

const delay = (n: number) => new Promise<undefined>((r) => setTimeout(() => r(undefined), n).unref());
