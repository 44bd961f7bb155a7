// codex's JSON-RPC dialect over in-memory pipes: requests and their answers, server requests
// answered by the handler (a throwing handler is an error response, not a crash), and requests
// still open when the connection closes.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ServerNotification } from '../../src/drivers/codex-protocol.js';
import { codexPeer, RpcClosed, RpcError } from '../../src/drivers/codex-rpc.js';
import type { DriverFault } from '../../src/drivers/types.js';

function setup(onRequest: () => { result: unknown } = () => ({ result: {} })) {
  const fromServer = new PassThrough();
  const toServer = new PassThrough();
  const written: Record<string, unknown>[] = [];
  toServer.on('data', (b: Buffer) => {
    for (const l of b.toString().split('\n').filter(Boolean)) written.push(JSON.parse(l));
  });
  const notes: ServerNotification[] = [];
  const faults: DriverFault[] = [];
  const peer = codexPeer(fromServer, toServer, {
    onRequest,
    onNotification: (n) => notes.push(n),
    onFault: (f) => faults.push(f),
  });
  const line = (o: object | string) => fromServer.write(`${typeof o === 'string' ? o : JSON.stringify(o)}\n`);
  return { peer, fromServer, written, notes, faults, line };
}
const tick = () => new Promise((r) => setTimeout(r, 10));

describe('codexPeer', () => {
  it('sends requests without a jsonrpc field and resolves them with their result', async () => {
    const s = setup();
    const p = s.peer.request('turn/interrupt', { threadId: 't', turnId: 'u' });
    await tick();
    expect(s.written).toEqual([{ id: 1, method: 'turn/interrupt', params: { threadId: 't', turnId: 'u' } }]);
    s.line({ id: 1, result: {} });
    expect(await p).toEqual({});
    s.peer.notifyInitialized();
    await tick();
    expect(s.written.at(-1)).toEqual({ method: 'initialized' });
  });

  it('rejects a request answered with an error, with its code and message', async () => {
    const s = setup();
    const p = s.peer.request('thread/resume', { threadId: 'gone' });
    await tick();
    s.line({ id: 1, error: { code: -32600, message: 'no rollout found for thread id gone' } });
    await expect(p).rejects.toMatchObject({ code: -32600, message: 'no rollout found for thread id gone' });
    await expect(p).rejects.toBeInstanceOf(RpcError);
  });

  it('answers server requests through the handler, and a throwing handler with an error', async () => {
    let n = 0;
    const s = setup(() => {
      if (n++ === 1) throw new Error('boom');
      return { result: { decision: 'decline' } };
    });
    s.line({ id: 'a', method: 'item/commandExecution/requestApproval', params: {} });
    s.line({ id: 'b', method: 'item/fileChange/requestApproval', params: {} });
    s.line({ method: 'turn/started', params: { threadId: 't' } });
    await tick();
    expect(s.written).toEqual([
      { id: 'a', result: { decision: 'decline' } },
      { id: 'b', error: { code: -32603, message: 'boom' } },
    ]);
    expect(s.notes).toEqual([{ method: 'turn/started', params: { threadId: 't' } }]);
  });

  it('a response to nothing it sent is a fault, and nothing after it is delivered', async () => {
    const s = setup();
    s.line({ id: 99, result: {} });
    s.line({ method: 'turn/started', params: {} });
    await tick();
    expect(s.faults).toEqual([{ type: 'unknown_response', id: '99' }]);
    expect(s.notes).toEqual([]);
  });

  it('rejects open requests when the connection closes, and later ones at once', async () => {
    const s = setup();
    const p = s.peer.request('turn/interrupt', { threadId: 't', turnId: 'u' });
    s.fromServer.end();
    await expect(p).rejects.toBeInstanceOf(RpcClosed);
    await expect(s.peer.request('turn/interrupt', { threadId: 't', turnId: 'u' })).rejects.toBeInstanceOf(
      RpcClosed,
    );
  });
});
