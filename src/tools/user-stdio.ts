// The MCP client's transport to a user's stdio server, over a child started by the runner's rules
// (spawn-stdio.ts: argv, explicit environment, its own process group, tracked so it dies with the
// relay) rather than the SDK's own spawn. Messages are capped in size: a server that writes a line
// past the cap is stopped, and what waited on it fails, instead of the relay buffering it all.
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { StdioChild } from '../runner/spawn-stdio.js';

/** The largest message a user's server may send (a result, usually). */
export const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;
const STOP_GRACE_MS = 2000;

export class ChildTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly buffer: ReadBuffer;
  private closed = false;

  constructor(
    private readonly child: StdioChild,
    maxMessageBytes = MAX_MESSAGE_BYTES,
  ) {
    this.buffer = new ReadBuffer({ maxBufferSize: maxMessageBytes });
  }

  async start(): Promise<void> {
    this.child.stdout.on('data', (chunk: Buffer) => this.read(chunk));
    this.child.stdin.on('error', (err: Error) => this.onerror?.(err));
    void this.child.exited.then(() => this.ended());
  }

  private read(chunk: Buffer): void {
    try {
      this.buffer.append(chunk);
      for (let m = this.buffer.readMessage(); m !== null; m = this.buffer.readMessage()) this.onmessage?.(m);
    } catch (err) {
      // Past the cap, or not JSON-RPC: the stream cannot be trusted any more, so the server goes.
      this.onerror?.(err as Error);
      void this.close();
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the server has stopped'));
    return new Promise((resolve, reject) => {
      this.child.stdin.write(serializeMessage(message), (err) => (err ? reject(err) : resolve()));
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.buffer.clear();
    await this.child.stop(STOP_GRACE_MS);
    this.onclose?.();
  }

  private ended(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }

  /** Why the server's process ended, from its stderr's last line (for the log, never the chat). */
  stderrTail(): string {
    return this.child.stderrTail().trim().split('\n').at(-1)?.slice(0, 300) ?? '';
  }
}
