// One live `codex app-server` and the threads on it. app-server serves any number of threads on one
// connection, and every notification and approval request names its thread, so each session (one
// chat's thread, ./codex.ts) gets only its own. The process is shared by up to the registry's cap of
// sessions started the same way (./hosts.ts) and closed when its last session closes; what faults
// do to it and its sessions is ./host-base.ts's.
import type { StdioChild } from '../runner/spawn-stdio.js';
import type { Tap } from './acp-transport.js';
import { decide } from './approval.js';
import { answerCodexRequest, codexQuestion } from './codex-permission.js';
import type { ServerNotification, ServerRequest } from './codex-protocol.js';
import { type Answer, type CodexPeer, codexPeer, codexRejectionText, RpcError } from './codex-rpc.js';
import { HostBase, type HostBaseOptions, type HostLink } from './host-base.js';
import type { ErrorResult } from './results.js';
import type { PermissionPolicy } from './types.js';
import { delay, KILL_GRACE_MS } from './warm-child.js';

export interface CodexHostOptions extends HostBaseOptions {
  /** Answers a request of no open thread (a session already closed): the policy alone. */
  permission: PermissionPolicy;
  tap?: Tap;
}

/** One session as the host sees it. */
export interface CodexLink extends HostLink {
  threadId(): string | undefined;
  onNotification(n: ServerNotification): void;
  onRequest(req: ServerRequest): Answer | Promise<Answer>;
}

export class CodexHost extends HostBase<CodexLink> {
  private peer: CodexPeer | undefined;

  constructor(private readonly opts: CodexHostOptions) {
    super(opts, (error) => error instanceof RpcError, codexRejectionText);
  }

  /** The connection, once started (`start` resolved undefined). */
  connection(): CodexPeer | undefined {
    return this.peer;
  }

  protected override async released(link: CodexLink): Promise<void> {
    const threadId = link.threadId();
    // Lets codex unload the thread while the others go on. Awaited (briefly): a reopen of the same
    // thread (a /think change) must find it unloaded, so it resumes with its new settings.
    if (threadId && this.peer && !this.trouble.fault) {
      const bye = this.peer.request('thread/unsubscribe', { threadId }).catch(() => {});
      await Promise.race([bye, delay(KILL_GRACE_MS)]);
    }
  }

  protected async connect(child: StdioChild, t0: number): Promise<ErrorResult | undefined> {
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
    const r = await this.hello(
      this.peer.request('initialize', {
        clientInfo: { name: 'agentwire', title: null, version: '0' },
        capabilities: null,
      }),
      t0,
    );
    if (r.type !== 'value') return r;
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
}

/** The thread a message is about: v2 names it `threadId`, the older approval requests `conversationId`. */
function threadOf(params: unknown): string | undefined {
  if (!params || typeof params !== 'object') return undefined;
  const p = params as { threadId?: unknown; conversationId?: unknown };
  const id = p.threadId ?? p.conversationId;
  return typeof id === 'string' ? id : undefined;
}
