// One live ACP agent process and the sessions on it. ACP lets a client open any number of sessions
// (`session/new`, `session/load`) on one connection, and every `session/update` and
// `session/request_permission` names its session, so each chat's session (./acp.ts) gets only its
// own. The process is shared by up to the registry's cap of sessions started the same way
// (./hosts.ts) and closed when its last session closes. Faults are as for codex (./codex-host.ts):
// a dead or garbled process breaks every session on it; a turn that will not stop breaks its own
// session, and the process is killed once no other session on it is mid-turn.
import { randomUUID } from 'node:crypto';
import type {
  AgentCapabilities,
  ClientConnection,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionNotification,
} from '@agentclientprotocol/sdk';
import type { Logger } from '../log.js';
import { type GroupGuard, type StdioChild, startStdioChild } from '../runner/spawn-stdio.js';
import { acpQuestion, answerPermission } from './acp-permission.js';
import { acpSdk, isAcpRequestError } from './acp-sdk.js';
import { monitoredStream, type Tap } from './acp-transport.js';
import { decide } from './approval.js';
import type { SharedHost } from './hosts.js';
import { type ErrorResult, errorResult, faultDetail, faultKind, rejectionKind } from './results.js';
import { type Settled, Trouble } from './trouble.js';
import type { DriverFault, DriverProcess, PermissionPolicy } from './types.js';

const START_TIMEOUT_MS = 60_000;
const KILL_GRACE_MS = 2_000;

export interface AcpHostOptions {
  name: string;
  process: DriverProcess;
  /** Answers a request of no open session: the policy alone. */
  permission: PermissionPolicy;
  startTimeoutMs?: number;
  guard?: GroupGuard;
  tap?: Tap;
  /** Debug notes: a harmless misfit the agent sent, dropped (./acp-transport.ts). */
  log?: Logger;
}

/** One session as the host sees it. */
export interface AcpLink {
  sessionId(): string | undefined;
  busy(): boolean;
  onUpdate(n: SessionNotification): void;
  onPermission(p: RequestPermissionRequest): Promise<RequestPermissionResponse>;
  onFault(f: DriverFault): void;
}

export class AcpHost implements SharedHost {
  readonly id = randomUUID();
  private child: StdioChild | undefined;
  private conn: ClientConnection | undefined;
  private capabilities: AgentCapabilities | undefined;
  private starting: Promise<ErrorResult | undefined> | undefined;
  private readonly links = new Set<AcpLink>();
  private readonly trouble = new Trouble(isAcpRequestError, () => this.closed);
  private closed = false;
  private retired = false;

  constructor(private readonly opts: AcpHostOptions) {}

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

  attach(link: AcpLink): void {
    this.links.add(link);
    if (this.trouble.fault) link.onFault(this.trouble.fault);
  }

  /** The session closed: the process goes with its last one. */
  async detach(link: AcpLink): Promise<void> {
    if (!this.links.delete(link)) return;
    if (this.links.size > 0) {
      // ACP v1 has no way to close one session: it stays in the agent until the process ends.
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

  loadsSessions(): boolean {
    return this.capabilities?.loadSession === true;
  }

  connection(): ClientConnection | undefined {
    return this.conn;
  }

  stderrTail(): string {
    return this.child?.stderrTail() ?? '';
  }

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
  giveUp(link: AcpLink): void {
    this.retired = true;
    this.reap(link);
  }

  /** A session's turn ended: a retired process loses that session, and is killed once none runs. */
  turnEnded(): void {
    // After the caller has looked at its result, so that turn is not taken for one the kill ended.
    setImmediate(() => this.reap());
  }

  private reap(giver?: AcpLink): void {
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
    this.conn?.close();
    const child = this.child;
    if (!child) return;
    // End of input is how a stdio agent learns its client is gone; TERM and KILL if it lingers.
    child.stdin.end();
    const quick = await Promise.race([child.exited, delay(KILL_GRACE_MS)]);
    if (!quick) await child.stop(KILL_GRACE_MS);
    this.trouble.raise({ type: 'exited', exitCode: null, signal: null });
  }

  private async startNow(t0: number): Promise<ErrorResult | undefined> {
    const name = this.opts.name;
    const { client, methods, PROTOCOL_VERSION } = await acpSdk();
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
    if (this.closed) child.stdin.end();
    void child.exited.then((e) => this.raise({ type: 'exited', exitCode: e.exitCode, signal: e.signal }));
    const { stream } = monitoredStream(
      child.stdout,
      child.stdin,
      (f) => this.kill(f),
      undefined,
      this.opts.tap,
      (what) => this.opts.log?.debug({ agent: this.opts.name, what }, 'ACP: dropped a harmless misfit'),
    );
    this.conn = client({ name: 'agentwire' })
      .onRequest(methods.client.session.requestPermission, async ({ params }) => {
        const link = this.find(params.sessionId);
        if (link) return link.onPermission(params);
        // No open session of ours asked: nobody can be asked, the policy answers.
        const q = acpQuestion(params, this.opts.process.cwd);
        return answerPermission(params, await decide(q, { policy: this.opts.permission }));
      })
      .onNotification(methods.client.session.update, ({ params }) =>
        this.find(params.sessionId)?.onUpdate(params),
      )
      .connect(stream);
    const r = await this.trouble.settle(
      this.conn.agent.request(methods.agent.initialize, {
        protocolVersion: PROTOCOL_VERSION,
        // No file system or terminal of ours: the agent uses its own tools in its own folder.
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        clientInfo: { name: 'agentwire', version: '0' },
      }),
      this.opts.startTimeoutMs ?? START_TIMEOUT_MS,
    );
    if (r.type === 'value') {
      this.capabilities = r.value.agentCapabilities;
      return undefined;
    }
    return this.failure(r, t0, 'initialize');
  }

  private find(sessionId: string): AcpLink | undefined {
    for (const l of this.links) if (l.sessionId() === sessionId) return l;
    return undefined;
  }

  private failure(r: Exclude<Settled<unknown>, { type: 'value' }>, t0: number, what: string): ErrorResult {
    const name = this.opts.name;
    if (r.type === 'timeout') {
      this.kill({ type: 'unresponsive', what });
      return errorResult(name, 'timeout', t0, { detail: `no answer to ${what}` });
    }
    if (r.type === 'fault') {
      const f = r.fault;
      const exit = f.type === 'exited' ? { exitCode: f.exitCode, signal: f.signal } : {};
      const stderr = this.stderrTail();
      const detail = f.type === 'exited' && stderr.trim() ? stderr : faultDetail(f);
      return errorResult(name, faultKind(f), t0, { detail, ...exit });
    }
    const e = r.error as { message?: string; data?: unknown };
    const text = [e.message, typeof e.data === 'string' ? e.data : JSON.stringify(e.data ?? '')].join(' ');
    return errorResult(name, rejectionKind(text, 'exit'), t0, { detail: e.message ?? 'error' });
  }
}

const delay = (n: number) => new Promise<undefined>((r) => setTimeout(() => r(undefined), n).unref());
