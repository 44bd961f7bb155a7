// The gateway connection (@discordjs/ws, one shard): the intents, the session the library resumes,
// and the order dispatches are handled in.
//
// Resuming is the library's: after a disconnect it sends RESUME with the session id and the last
// sequence it saw, and Discord replays what the bot missed, so a disconnect neither loses nor doubles
// a message. The session is also kept in the channel's state, with the last sequence *handled*
// (stored, or passed over on purpose; not merely received), so a relay that restarts resumes too and
// gets what arrived while it was down; a replay of what it already stored is dropped by message id
// (inbound.ts). A session Discord no longer knows is answered with a fresh IDENTIFY by the library.
//
// Dispatches are handled one after another, in sequence order: the handled sequence then never
// passes a message that is still being stored.
import { GatewayDispatchEvents, type GatewayDispatchPayload, GatewayIntentBits } from '@discordjs/core';
import type { REST, RequestData, RouteLike } from '@discordjs/rest';
import { type SessionInfo, WebSocketManager, WebSocketShardEvents } from '@discordjs/ws';
import { OneShard } from './one-shard.js';
import type { DiscordState, SavedSession } from './state.js';

/** Only what the channel reads: messages in servers and DMs, and their text (a privileged intent). */
export const INTENTS =
  GatewayIntentBits.GuildMessages | GatewayIntentBits.DirectMessages | GatewayIntentBits.MessageContent;

export interface GatewayEvents {
  dispatch(payload: GatewayDispatchPayload): Promise<void>;
  /** The socket closed (a code) or the library gave up on the session (an error). */
  trouble(detail: string): void;
}

export interface Gateway {
  connect(): Promise<void>;
  /** Closes the socket so Discord keeps the session: the next start resumes it. */
  stop(): Promise<void>;
}

export function openGateway(token: string, rest: REST, state: DiscordState, events: GatewayEvents): Gateway {
  let live: SessionInfo | null = null;
  let saved: SavedSession | undefined;
  let loaded = false;
  let stopping = false;
  let chain: Promise<void> = Promise.resolve();
  let shards: OneShard | undefined;
  const stopper = new AbortController();
  const stopped = new Promise<void>((resolve) => stopper.signal.addEventListener('abort', () => resolve()));

  const manager = new WebSocketManager({
    token,
    intents: INTENTS,
    // Its one REST call (GET /gateway/bot) ends with the stop: a request Discord never answers would
    // otherwise hold the relay for the client's timeout and its retries.
    rest: abortable(rest, stopper.signal),
    shardCount: 1,
    buildStrategy: (m) => {
      shards = new OneShard(m);
      return shards;
    },
    async retrieveSessionInfo() {
      if (live) return live;
      if (!loaded) {
        loaded = true;
        saved = await state.session();
      }
      return saved ? { ...saved, shardId: 0 } : null;
    },
    async updateSessionInfo(_shard, info) {
      // Our own stop closes the socket the library's way, which forgets the session: kept instead.
      if (stopping) return;
      live = info;
      if (!info) {
        saved = undefined;
        await state.setSession(undefined);
      } else if (info.sessionId !== saved?.sessionId) {
        // A new session (READY): nothing of it handled yet but READY itself.
        saved = {
          sessionId: info.sessionId,
          resumeURL: info.resumeURL,
          shardCount: info.shardCount ?? 1,
          sequence: info.sequence,
        };
        await state.setSession(saved);
      }
    },
  });

  const handled = async (seq: number | null | undefined, sessionId: string | undefined) => {
    if (typeof seq !== 'number' || !saved || saved.sessionId !== sessionId || seq <= saved.sequence) return;
    saved = { ...saved, sequence: seq };
    await state.setSession(saved);
  };

  manager.on(WebSocketShardEvents.Dispatch, (payload: GatewayDispatchPayload) => {
    const session = live?.sessionId;
    chain = chain
      .then(() => events.dispatch(payload))
      .then(() =>
        handled(payload.s, payload.t === GatewayDispatchEvents.Ready ? payload.d.session_id : session),
      )
      .catch((err: Error) => events.trouble(`dispatch ${payload.t} failed: ${err.message}`));
  });
  manager.on(WebSocketShardEvents.Closed, (code: number) => {
    if (!stopping) events.trouble(`gateway closed (${code}), reconnecting`);
  });
  manager.on(WebSocketShardEvents.Error, (err: Error) => events.trouble(`gateway: ${err.message}`));

  return {
    async connect() {
      stopping = false;
      const connecting = manager.connect();
      connecting.catch(() => undefined);
      await Promise.race([connecting, stopped]);
    },
    async stop() {
      stopping = true;
      stopper.abort();
      shards?.end();
      // 4200 (not 1000): a normal close would end the session on Discord's side too.
      try {
        await manager.destroy({ code: 4200, reason: 'relay stopping' });
      } catch {
        // Never connected: nothing to close.
      }
      await chain;
    },
  };
}

/** The client with every GET made under `signal`. */
function abortable(rest: REST, signal: AbortSignal): REST {
  return new Proxy(rest, {
    get(target, prop) {
      if (prop === 'get')
        return (route: RouteLike, options?: RequestData) => target.get(route, { ...options, signal });
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
