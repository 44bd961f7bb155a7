// One live ACP agent process and the sessions on it. ACP lets a client open any number of sessions
// (`session/new`, `session/load`) on one connection, and every `session/update` and
// `session/request_permission` names its session, so each chat's session (./acp.ts) gets only its
// own. The process is shared by up to the registry's cap of sessions started the same way
// (./hosts.ts) and closed when its last session closes; what faults do to it and its sessions is
// ./host-base.ts's, as for codex.
import type {
  AgentCapabilities,
  ClientConnection,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionNotification,
} from '@agentclientprotocol/sdk';
import type { Logger } from '../log.js';
import type { StdioChild } from '../runner/spawn-stdio.js';
import { acpQuestion, answerPermission } from './acp-permission.js';
import { acpRejectionText, acpSdk, isAcpRequestError } from './acp-sdk.js';
import { monitoredStream, type Tap } from './acp-transport.js';
import { decide } from './approval.js';
import { HostBase, type HostBaseOptions, type HostLink } from './host-base.js';
import type { ErrorResult } from './results.js';
import type { PermissionPolicy } from './types.js';

export interface AcpHostOptions extends HostBaseOptions {
  /** Answers a request of no open session: the policy alone. */
  permission: PermissionPolicy;
  tap?: Tap;
  /** Debug notes: a harmless misfit the agent sent, dropped (./acp-transport.ts). */
  log?: Logger;
}

/** One session as the host sees it. */
export interface AcpLink extends HostLink {
  sessionId(): string | undefined;
  onUpdate(n: SessionNotification): void;
  onPermission(p: RequestPermissionRequest): Promise<RequestPermissionResponse>;
}

export class AcpHost extends HostBase<AcpLink> {
  private conn: ClientConnection | undefined;
  private capabilities: AgentCapabilities | undefined;

  constructor(private readonly opts: AcpHostOptions) {
    super(opts, isAcpRequestError, acpRejectionText);
  }

  loadsSessions(): boolean {
    return this.capabilities?.loadSession === true;
  }

  connection(): ClientConnection | undefined {
    return this.conn;
  }

  protected override async prepare(): Promise<void> {
    await acpSdk();
  }

  // ACP v1 has no way to close one session: it stays in the agent until the process ends, so a
  // session that leaves while others stay (`released`) has nothing to say.

  protected override closing(): void {
    this.conn?.close();
  }

  protected async connect(child: StdioChild, t0: number): Promise<ErrorResult | undefined> {
    const { client, methods, PROTOCOL_VERSION } = await acpSdk();
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
    const r = await this.hello(
      this.conn.agent.request(methods.agent.initialize, {
        protocolVersion: PROTOCOL_VERSION,
        // No file system or terminal of ours: the agent uses its own tools in its own folder.
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        clientInfo: { name: 'agentwire', version: '0' },
      }),
      t0,
    );
    if (r.type !== 'value') return r;
    this.capabilities = r.value.agentCapabilities;
    return undefined;
  }

  private find(sessionId: string): AcpLink | undefined {
    for (const l of this.links) if (l.sessionId() === sessionId) return l;
    return undefined;
  }
}
