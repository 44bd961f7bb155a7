// The gateway's one shard, run by us instead of the library's SimpleShardingStrategy so that a stop
// in the middle of a handshake really stops.
//
// Why (@discordjs/ws 2.0.4): `WebSocketShard.destroy()` aborts the shard's own waits for HELLO and
// READY, and a wait that is aborted is taken for a timeout: the shard then destroys itself a second
// time with "reconnect", which drops the first destroy's close handler (so that destroy never
// settles) and opens a new socket 500 ms later. A relay told to stop while Discord had not yet sent
// READY kept running with a fresh connection. The shard's waits also end, cleanly, when it emits
// `closed`; so a stop first emits that (the library's own event, which its waits listen for), lets the
// waits settle, and only then destroys. `connect()` is raced against the stop too: the library's
// connect waits only for READY or RESUMED, and after a destroy neither comes.
import { Collection } from '@discordjs/collection';
import type { GatewaySendPayload } from '@discordjs/core';
import {
  type IShardingStrategy,
  managerToFetchingStrategyOptions,
  SimpleContextFetchingStrategy,
  type WebSocketManager,
  WebSocketShard,
  type WebSocketShardDestroyOptions,
  WebSocketShardEvents,
  type WebSocketShardStatus,
} from '@discordjs/ws';
import { nextTurn } from '../../core/next-turn.js';

export class OneShard implements IShardingStrategy {
  private shard: WebSocketShard | undefined;
  /** True while destroy() emits its own `closed`, which is not the gateway's and is not passed on. */
  private closing = false;
  private ended = false;
  private markEnded: () => void = () => {};
  private readonly whenEnded = new Promise<void>((resolve) => {
    this.markEnded = resolve;
  });

  constructor(private readonly manager: WebSocketManager) {}

  /**
   * For good: a connect under way returns, none starts again. Called before the manager's destroy(),
   * which the manager also calls on its own at each connect (to spawn the shards anew).
   */
  end(): void {
    this.ended = true;
    this.markEnded();
  }

  async spawn(shardIds: number[]): Promise<void> {
    if (shardIds.length !== 1) throw new Error(`one shard expected, not ${shardIds.length}`);
    if (this.ended) return;
    const id = shardIds[0]!;
    const options = await managerToFetchingStrategyOptions(this.manager);
    const shard = new WebSocketShard(new SimpleContextFetchingStrategy(this.manager, options), id);
    for (const event of Object.values(WebSocketShardEvents)) {
      shard.on(event, (...args: unknown[]) => {
        if (event === WebSocketShardEvents.Closed && this.closing) return;
        (this.manager.emit as (e: string, ...a: unknown[]) => boolean)(event, ...args, id);
      });
    }
    this.shard = shard;
  }

  async connect(): Promise<void> {
    if (this.ended || !this.shard) return;
    await Promise.race([this.shard.connect(), this.whenEnded]);
  }

  async destroy(options?: Omit<WebSocketShardDestroyOptions, 'recover'>): Promise<void> {
    const shard = this.shard;
    this.shard = undefined;
    if (!shard) return;
    this.closing = true;
    try {
      (shard.emit as (e: string, ...a: unknown[]) => boolean)(WebSocketShardEvents.Closed, options?.code);
    } finally {
      this.closing = false;
    }
    // One turn of the loop: the waits just released settle before destroy() looks at them.
    await nextTurn();
    await shard.destroy(options);
  }

  async send(_shardId: number, payload: GatewaySendPayload): Promise<void> {
    if (!this.shard) throw new Error('the Discord gateway is not connected');
    await this.shard.send(payload);
  }

  fetchStatus(): Collection<number, WebSocketShardStatus> {
    return new Collection(this.shard ? [[this.shard.id, this.shard.status]] : []);
  }
}
