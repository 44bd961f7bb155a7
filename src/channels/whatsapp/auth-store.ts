// Baileys auth state (creds + every Signal key type, v7 `lid-mapping`, `device-list`, `tctoken`
// included) kept in SQLite. Each write is one transaction: a full disk or a crash rolls back and
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
import { type Db, transaction } from '../../store/db.js';
import { isLinkedCreds, type LinkState, linkState, readCredsRow } from './link-state.js';

export { isLinkedCreds, type LinkState, linkedAccount, linkState } from './link-state.js';

export interface WaAuth {
  readonly state: AuthenticationState;
  /** Persists the current creds; rejects (and keeps the stored copy) when the write fails. */
  saveCreds(): Promise<void>;
  markLoggedOut(): void;
  /** Removes creds and keys in one transaction (logout / explicit relink only). */
  clear(): void;
}

export type LoadAuthResult = { ok: true; auth: WaAuth; link: LinkState } | { ok: false; error: string };

const encode = (value: unknown): string => JSON.stringify(value, BufferJSON.replacer);
const decode = <T>(text: string): T => JSON.parse(text, BufferJSON.reviver) as T;

const identityOf = (c: AuthenticationCreds): string =>
  Buffer.from(c.signedIdentityKey.public).toString('base64');

/** The raw key store over `wa_keys`; Baileys wraps it with its cache and transaction layers. */
export function sqliteKeyStore(db: Db): SignalKeyStore {
  const getOne = db.prepare('SELECT data FROM wa_keys WHERE type = ? AND id = ?');
  const upsert = db.prepare(
    'INSERT INTO wa_keys (type, id, data) VALUES (?, ?, ?) ON CONFLICT(type, id) DO UPDATE SET data = excluded.data',
  );
  const remove = db.prepare('DELETE FROM wa_keys WHERE type = ? AND id = ?');
  return {
    get<T extends keyof SignalDataTypeMap>(type: T, ids: string[]) {
      const out: { [id: string]: SignalDataTypeMap[T] } = {};
      for (const id of ids) {
        const row = getOne.get(type, id) as { data: string } | undefined;
        if (!row) continue;
        let value = decode<SignalDataTypeMap[T]>(row.data);
        if (type === 'app-state-sync-key') {
          value = proto.Message.AppStateSyncKeyData.fromObject(
            value as object,
          ) as unknown as SignalDataTypeMap[T];
        }
        out[id] = value;
      }
      return out;
    },
    set(data: SignalDataSet) {
      transaction(db, () => {
        for (const type of Object.keys(data) as (keyof SignalDataSet)[]) {
          const entries = data[type] ?? {};
          for (const [id, value] of Object.entries(entries)) {
            if (value === null || value === undefined) remove.run(type, id);
            else upsert.run(type, id, encode(value));
          }
        }
      });
    },
    clear() {
      db.prepare('DELETE FROM wa_keys').run();
    },
  };
}

export function loadAuth(db: Db, logger?: Parameters<typeof makeCacheableSignalKeyStore>[1]): LoadAuthResult {
  const row = readCredsRow(db);
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
    state: { creds, keys: makeCacheableSignalKeyStore(sqliteKeyStore(db), logger) },
    saveCreds() {
      // Serialised: Baileys fires creds.update in bursts and each save writes the whole object.
      const run = chain.then(() => {
        if (stored && identityOf(creds) !== stored) {
          throw new Error('refusing to replace the linked WhatsApp identity; run `agentwire logout` first');
        }
        db.prepare(
          `INSERT INTO wa_creds (id, data, logged_out_at, updated_at) VALUES (1, ?, NULL, ?)
           ON CONFLICT(id) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at`,
        ).run(encode(creds), Date.now());
        if (isLinkedCreds(creds)) stored = identityOf(creds);
      });
      chain = run.catch(() => undefined);
      return run;
    },
    markLoggedOut() {
      db.prepare('UPDATE wa_creds SET logged_out_at = ? WHERE id = 1').run(Date.now());
    },
    clear() {
      transaction(db, () => {
        db.prepare('DELETE FROM wa_creds').run();
        db.prepare('DELETE FROM wa_keys').run();
        db.prepare('DELETE FROM wa_sent').run();
        db.prepare('DELETE FROM wa_chats').run();
      });
      stored = undefined;
    },
  };
  return { ok: true, auth, link: linkState(db) };
}
