// JSON-RPC as `codex app-server` speaks it: one JSON object a line, with no `"jsonrpc"` field.
// Methods and payloads are typed from codex's own generated schema (./codex-protocol.d.ts), so a
// method name or field the pinned codex does not have fails the typecheck. The line checks
// (garbage, a response to a request never sent or answered twice, oversize lines) are the ACP
// transport's, shared: on any of them the peer stops delivering and the driver sees a fault.
import type { Readable, Writable } from 'node:stream';
import type { AnyMessage } from '@agentclientprotocol/sdk';
import { monitoredStream, type Tap } from './acp-transport.js';
import type {
  ClientNotification,
  ClientRequest,
  InitializeResponse,
  ServerNotification,
  ServerRequest,
  ThreadResumeResponse,
  ThreadStartResponse,
  TurnInterruptResponse,
  TurnStartResponse,
  TurnSteerResponse,
} from './codex-protocol.js';
import type { DriverFault } from './types.js';

/** The client requests this driver sends, each with the response type codex's schema gives it. */
interface Responses {
  initialize: InitializeResponse;
  'thread/start': ThreadStartResponse;
  'thread/resume': ThreadResumeResponse;
  'turn/start': TurnStartResponse;
  'turn/steer': TurnSteerResponse;
  'turn/interrupt': TurnInterruptResponse;
  // Its response type is not in the generated closure; nothing is read from it.
  'thread/unsubscribe': unknown;
}
export type Method = keyof Responses;
export type ParamsOf<M extends Method> = Extract<ClientRequest, { method: M }>['params'];

/** An error response from codex (its own words in `message`). */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** The words of codex's error answer: its message and its data, for telling its kind. */
export function codexRejectionText(error: unknown): string {
  const e = error as Error;
  const data = e instanceof RpcError && e.data !== undefined ? JSON.stringify(e.data) : '';
  return `${e.message} ${data}`;
}

/** The connection ended (the child closed stdout or a fault stopped delivery) under a request. */
export class RpcClosed extends Error {}

/** What a server request is answered with: a result, or an error response. */
export type Answer = { result: unknown } | { error: { code: number; message: string } };

export interface CodexPeer {
  request<M extends Method>(method: M, params: ParamsOf<M>): Promise<Responses[M]>;
  /** The one client notification there is, `initialized`. */
  notifyInitialized(): void;
  outstanding(): number;
}

export interface PeerHandlers {
  /** May wait (a person's approval): the reader goes on meanwhile, and the answer is sent when ready. */
  onRequest(req: ServerRequest): Answer | Promise<Answer>;
  onNotification(n: ServerNotification): void;
  onFault(f: DriverFault): void;
}

export function codexPeer(input: Readable, output: Writable, h: PeerHandlers, tap?: Tap): CodexPeer {
  const { stream, outstanding } = monitoredStream(input, output, h.onFault, undefined, tap);
  const writer = stream.writable.getWriter();
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let closed = false;
  const send = (msg: object) => void writer.write(msg as AnyMessage).catch(() => {});

  void (async () => {
    const reader = stream.readable.getReader();
    for (;;) {
      const r = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (r.done) break;
      const m = r.value as Record<string, unknown>;
      if (typeof m.method === 'string' && 'id' in m) {
        const id = m.id;
        const failed = (e: unknown): Answer => ({ error: { code: -32603, message: (e as Error).message } });
        let answer: Answer | Promise<Answer>;
        try {
          answer = h.onRequest(m as unknown as ServerRequest);
        } catch (e) {
          answer = failed(e);
        }
        if (answer instanceof Promise) void answer.then((a) => a, failed).then((a) => send({ id, ...a }));
        else send({ id, ...answer });
      } else if (typeof m.method === 'string') {
        h.onNotification(m as unknown as ServerNotification);
      } else if (typeof m.id === 'number') {
        // The transport only lets through responses to ids we sent and that are still open.
        const p = pending.get(m.id);
        pending.delete(m.id);
        const err = m.error as { code?: unknown; message?: unknown; data?: unknown } | undefined;
        if (err && typeof err === 'object') {
          p?.reject(
            new RpcError(
              typeof err.code === 'number' ? err.code : 0,
              typeof err.message === 'string' ? err.message : 'error',
              err.data,
            ),
          );
        } else p?.resolve(m.result);
      }
    }
    closed = true;
    for (const p of pending.values()) p.reject(new RpcClosed('the connection closed'));
    pending.clear();
  })();

  return {
    request(method, params) {
      if (closed) return Promise.reject(new RpcClosed('the connection closed'));
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        send({ id, method, params });
      });
    },
    notifyInitialized() {
      const n: ClientNotification = { method: 'initialized' };
      send(n);
    },
    outstanding,
  };
}
