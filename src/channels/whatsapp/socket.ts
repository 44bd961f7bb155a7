// The slice of Baileys' socket the channel uses, so tests can drive it with a fake, and the one place
// socket options are chosen.
import {
  type AuthenticationCreds,
  type AuthenticationState,
  type BaileysEventEmitter,
  type CacheStore,
  type GroupMetadata,
  isJidBot,
  isJidBroadcast,
  isJidMetaAI,
  isJidNewsletter,
  makeWASocket,
  type proto,
  type UserFacingSocketConfig,
  type WAMessageKey,
  type WASocket,
} from '@whiskeysockets/baileys';
import type { Logger } from '../../log.js';

type LidMapping = WASocket['signalRepository']['lidMapping'];

export type WaSocket = Pick<
  WASocket,
  | 'sendMessage'
  | 'readMessages'
  | 'sendPresenceUpdate'
  | 'end'
  | 'logout'
  | 'user'
  | 'updateMediaMessage'
  | 'groupMetadata'
  | 'requestPairingCode'
  | 'executeUSyncQuery'
> & {
  ev: BaileysEventEmitter;
  signalRepository: { lidMapping: Pick<LidMapping, 'getPNForLID' | 'getLIDForPN'> };
  authState: { creds: AuthenticationCreds };
};

export type MakeSocket = (config: UserFacingSocketConfig) => WaSocket;

export const defaultMakeSocket: MakeSocket = (config) => makeWASocket(config);

export interface SocketHooks {
  getMessage?: (key: WAMessageKey) => Promise<proto.IMessage | undefined>;
  cachedGroupMetadata?: (jid: string) => Promise<GroupMetadata | undefined>;
  /** Kept outside the socket so retry counts survive reconnects (Baileys' example says so). */
  msgRetryCounterCache?: CacheStore;
}

/**
 * Baileys is chatty (sync state machine, pre-keys, decrypt retries) and its lines carry JIDs, i.e.
 * phone numbers: only its errors are shown unless the log level is debug or finer.
 */
export function baileysLogger(log: Logger): Logger {
  const level = log.isLevelEnabled('debug') ? log.level : 'error';
  return log.child({ mod: 'baileys' }, { level });
}

export function socketConfig(
  auth: AuthenticationState,
  log: Logger,
  hooks: SocketHooks = {},
): UserFacingSocketConfig {
  const config: UserFacingSocketConfig = {
    auth,
    logger: baileysLogger(log),
    // Online-on-connect would silence push notifications on the owner's phone (research A6).
    markOnlineOnConnect: false,
    syncFullHistory: false,
    // History is never a prompt; recent-sync chunks are still processed because Baileys learns the
    // LID↔phone mappings from them (disabling all sync makes it warn about unstable sessions).
    generateHighQualityLinkPreview: false,
    // fireInitQueries stays on: they are three queries over this same connection once it opens
    // (server props that decide how 1:1 messages are sent, blocklist, privacy settings), not extra
    // network calls. Nothing else is fetched at creation: no fetchLatestBaileysVersion (GitHub).
    fireInitQueries: true,
    // Never decrypt status updates, broadcast lists, newsletters or the Meta AI bot (openclaw#69746);
    // an undecryptable status can also stall the offline queue (Baileys PR#2779).
    shouldIgnoreJid: (jid) =>
      Boolean(isJidBroadcast(jid) || isJidNewsletter(jid) || isJidMetaAI(jid) || isJidBot(jid)),
  };
  if (hooks.getMessage) config.getMessage = hooks.getMessage;
  if (hooks.cachedGroupMetadata) config.cachedGroupMetadata = hooks.cachedGroupMetadata;
  if (hooks.msgRetryCounterCache) config.msgRetryCounterCache = hooks.msgRetryCounterCache;
  return config;
}

/** A small in-memory CacheStore (bounded, with expiry) for Baileys' retry counters. */
export function memoryCache(ttlMs = 3_600_000, max = 5_000, now: () => number = Date.now): CacheStore {
  const map = new Map<string, { value: unknown; at: number }>();
  return {
    get<T>(key: string): T | undefined {
      const e = map.get(key);
      if (!e) return undefined;
      if (now() - e.at > ttlMs) {
        map.delete(key);
        return undefined;
      }
      return e.value as T;
    },
    set<T>(key: string, value: T) {
      map.delete(key);
      map.set(key, { value, at: now() });
      while (map.size > max) map.delete(map.keys().next().value!);
    },
    del(key: string) {
      map.delete(key);
    },
    flushAll() {
      map.clear();
    },
  };
}
