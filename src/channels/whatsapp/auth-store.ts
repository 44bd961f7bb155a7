// Baileys auth state (creds + every Signal key type, v7 `lid-mapping`, `device-list`, `tctoken`
// included) kept in the store (store/whatsapp-auth.ts). Each write is one transaction: a full disk or a crash rolls back and
// leaves the last good copy, and nothing here ever mints a new identity over a stored one.
import {
  type AuthenticationCreds,
  type AuthenticationState,
  BufferJSON,
  initAuthCreds,
  makeCacheableSignalKeyStore,
  proto,
  type SignalDataSet,
  type SignalDataTypeMap,
  type SignalKeyStore,
} from '@whiskeysockets/baileys';
import type { Fence } from '../../store/ownership.js';
import type { WhatsAppAuthStore } from '../../store/whatsapp-auth.js';
import { isLinkedCreds, type LinkState, linkStateOf } from './link-state.js';

export { isLinkedCreds, type LinkState, linkedAccount, linkState } from './link-state.js';

export interface WaAuth {
  readonly state: AuthenticationState;
  /** Persists the current creds; rejects (and keeps the stored copy) when the write fails. */
  saveCreds(): Promise<void>;
  markLoggedOut(): Promise<void>;
  /** Removes creds and keys in one transaction (logout / explicit relink only). */
  clear(): Promise<void>;
}

export type LoadAuthResult = { ok: true; auth: WaAuth; link: LinkState } | { ok: false; error: string };

const encode = (value: unknown): string => JSON.stringify(value, BufferJSON.replacer);
const decode = <T>(text: string): T => JSON.parse(text, BufferJSON.reviver) as T;

const identityOf = (c: AuthenticationCreds): string =>
  Buffer.from(c.signedIdentityKey.public).toString('base64');

/** The raw key store over the stored keys; Baileys wraps it with its cache and transaction layers. */
export function storeKeyStore(store: WhatsAppAuthStore, fence?: Fence): SignalKeyStore {
  return {
    async get<T extends keyof SignalDataTypeMap>(type: T, ids: string[]) {
      const out: { [id: string]: SignalDataTypeMap[T] } = {};
      for (const [id, data] of await store.readKeys(type, ids)) {
        let value = decode<SignalDataTypeMap[T]>(data);
        if (type === 'app-state-sync-key') {
          value = proto.Message.AppStateSyncKeyData.fromObject(
            value as object,
          ) as unknown as SignalDataTypeMap[T];
        }
        out[id] = value;
      }
      return out;
    },
    async set(data: SignalDataSet) {
      const changes = [];
      for (const type of Object.keys(data) as (keyof SignalDataSet)[]) {
        for (const [id, value] of Object.entries(data[type] ?? {}))
          changes.push({ type, id, data: value === null || value === undefined ? null : encode(value) });
      }
      await store.writeKeys(changes, fence);
    },
    async clear() {
      await store.clearKeys(fence);
    },
  };
}

/**
 * Reads the creds once (Baileys keeps them as one object in memory and reads them synchronously);
 * every change is written through `saveCreds`. Keys are read and written through the store on
 * demand, behind Baileys' cache. `fence`: the socket lease every write carries (store/whatsapp-auth.ts).
 */
export async function loadAuth(
  store: WhatsAppAuthStore,
  logger?: Parameters<typeof makeCacheableSignalKeyStore>[1],
  fence?: Fence,
): Promise<LoadAuthResult> {
  const row = await store.readCreds();
  let creds: AuthenticationCreds;
  if (row) {
    try {
      creds = decode<AuthenticationCreds>(row.data);
      if (!creds?.signedIdentityKey?.public || !creds.noiseKey) throw new Error('incomplete');
    } catch {
      return {
        ok: false,
        error:
          'The stored WhatsApp credentials cannot be read. They were left untouched; run `agentwire logout --yes` and `agentwire login` to link again.',
      };
    }
  } else {
    creds = initAuthCreds();
  }
  // The identity already on disk; a save carrying any other identity is refused.
  let stored = row && isLinkedCreds(creds) ? identityOf(creds) : undefined;
  let chain: Promise<void> = Promise.resolve();
  const auth: WaAuth = {
    state: { creds, keys: makeCacheableSignalKeyStore(storeKeyStore(store, fence), logger) },
    saveCreds() {
      // Serialised: Baileys fires creds.update in bursts and each save writes the whole object.
      const run = chain.then(async () => {
        if (stored && identityOf(creds) !== stored) {
          throw new Error('refusing to replace the linked WhatsApp identity; run `agentwire logout` first');
        }
        await store.saveCreds(encode(creds), Date.now(), fence);
        if (isLinkedCreds(creds)) stored = identityOf(creds);
      });
      chain = run.catch(() => undefined);
      return run;
    },
    markLoggedOut: () => store.markLoggedOut(Date.now(), fence),
    async clear() {
      await store.forget();
      stored = undefined;
    },
  };
  return { ok: true, auth, link: linkStateOf(row) };
}
