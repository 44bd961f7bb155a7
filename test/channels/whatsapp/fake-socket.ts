// A fake Baileys socket: the far edge (WhatsApp's servers) replaced, everything else real. Its `ev`
// is an EventEmitter with Baileys' on/off/emit shape, it records what the channel sends, and its
// LID mapping store is Baileys' own, running over the channel's SQLite key store.
import { EventEmitter } from 'node:events';
import {
  type AnyMessageContent,
  addTransactionCapability,
  type BaileysEventEmitter,
  type BaileysEventMap,
  type Contact,
  DEFAULT_CONNECTION_CONFIG,
  DisconnectReason,
  type GroupMetadata,
  type MiscMessageGenerationOptions,
  proto,
  type UserFacingSocketConfig,
  type WAMessage,
  type WAMessageKey,
} from '@whiskeysockets/baileys';
import type { MakeSocket, WaSocket } from '../../../src/channels/whatsapp/socket.js';

/** The shape of the Boom errors Baileys closes with (`output.statusCode`). */
export function boom(statusCode: number, message = 'Stream Errored'): Error {
  return Object.assign(new Error(message), { isBoom: true, output: { statusCode } });
}

export const OWNER_PN = '15550001111';
export const OWNER_LID = '99990001111';
export const OWNER_E164 = `+${OWNER_PN}`;

const silent = DEFAULT_CONNECTION_CONFIG.logger.child({});
silent.level = 'silent';

export class FakeSocket implements WaSocket {
  readonly emitter = new EventEmitter();
  readonly ev: BaileysEventEmitter = {
    on: (event, fn) => void this.emitter.on(event, fn as (a: unknown) => void),
    off: (event, fn) => void this.emitter.off(event, fn as (a: unknown) => void),
    removeAllListeners: (event) => void this.emitter.removeAllListeners(event),
    emit: (event, arg) => this.emitter.emit(event, arg),
  };
  user: Contact | undefined = {
    id: `${OWNER_PN}:7@s.whatsapp.net`,
    lid: `${OWNER_LID}:7@lid`,
    name: 'Owner',
  };
  readonly sent: { jid: string; content: AnyMessageContent; options?: MiscMessageGenerationOptions }[] = [];
  readonly reads: WAMessageKey[][] = [];
  readonly presence: { type: string; jid?: string }[] = [];
  readonly groupFetches: string[] = [];
  ended = false;
  loggedOut = false;
  isOpen = false;
  /** Makes the next sendMessage calls throw this error. */
  failSend: Error | undefined;
  updateMediaMessage: WaSocket['updateMediaMessage'] = async () => {
    throw new Error('no re-upload in this test');
  };
  readonly signalRepository: WaSocket['signalRepository'];
  readonly authState: WaSocket['authState'];

  constructor(readonly config: UserFacingSocketConfig) {
    this.authState = { creds: config.auth.creds };
    const keys = addTransactionCapability(config.auth.keys, silent, {
      maxCommitRetries: 1,
      delayBetweenTriesMs: 1,
    });
    const repo = DEFAULT_CONNECTION_CONFIG.makeSignalRepository({ creds: config.auth.creds, keys }, silent);
    this.signalRepository = { lidMapping: repo.lidMapping };
    this.lidStore = repo.lidMapping;
  }

  readonly lidStore: { storeLIDPNMappings(p: { lid: string; pn: string }[]): Promise<void> };

  listenerCount(): number {
    return this.emitter.eventNames().reduce((n, e) => n + this.emitter.listenerCount(e), 0);
  }

  emit<T extends keyof BaileysEventMap>(event: T, arg: BaileysEventMap[T]): void {
    this.emitter.emit(event, arg);
  }

  open(): void {
    this.isOpen = true;
    this.emit('connection.update', { connection: 'open' });
  }

  /** Closes like Baileys: a close update carrying the Boom, then its listeners are gone. */
  close(code: number | undefined, message?: string): void {
    this.isOpen = false;
    this.emit('connection.update', {
      connection: 'close',
      lastDisconnect: { error: code === undefined ? undefined : boom(code, message), date: new Date() },
    });
  }

  upsert(messages: WAMessage[], type: 'notify' | 'append' = 'notify'): void {
    this.emit('messages.upsert', { messages, type });
  }

  sendMessage: WaSocket['sendMessage'] = async (jid, content, options) => {
    if (!this.isOpen) throw boom(DisconnectReason.connectionClosed, 'Connection Closed');
    if (this.failSend) throw this.failSend;
    this.sent.push(options ? { jid, content, options } : { jid, content });
    const id = options?.messageId ?? `FAKE${this.sent.length}`;
    const c = content as { text?: string; caption?: string };
    const msg = proto.WebMessageInfo.fromObject({
      key: { remoteJid: jid, fromMe: true, id },
      message: { conversation: c.text ?? c.caption ?? '[media]' },
      messageTimestamp: Math.floor(Date.now() / 1000),
    }) as WAMessage;
    // Like Baileys (emitOwnEvents, messages-send.ts): our own message comes back as an `append`
    // upsert before sendMessage resolves, so echo suppression cannot rely on the returned id.
    this.emit('messages.upsert', { messages: [msg], type: 'append' });
    return msg;
  };

  readMessages: WaSocket['readMessages'] = async (keys) => {
    this.reads.push(keys);
  };

  sendPresenceUpdate: WaSocket['sendPresenceUpdate'] = async (type, jid) => {
    this.presence.push(jid ? { type, jid } : { type });
  };

  groupMetadata: WaSocket['groupMetadata'] = async (jid) => {
    this.groupFetches.push(jid);
    return { id: jid, subject: 'Group', participants: [] } as unknown as GroupMetadata;
  };

  /**
   * How WhatsApp answers the liveness probe (a USync device-list query): `answer` lists this device,
   * `unlinked` lists only the phone (the link was removed there), `silent` never answers (a socket
   * whose stream died while keep-alives still pass), `timeout` is Baileys' own query timeout.
   */
  usync: 'answer' | 'unlinked' | 'silent' | 'timeout' = 'answer';
  readonly usyncQueries: { users: string[]; protocols: string[]; context: string }[] = [];
  executeUSyncQuery: WaSocket['executeUSyncQuery'] = async (query) => {
    this.usyncQueries.push({
      users: query.users.map((u) => u.id ?? ''),
      protocols: query.protocols.map((p) => p.name),
      context: query.context,
    });
    if (this.usync === 'silent') return new Promise<never>(() => {});
    if (this.usync === 'timeout') return undefined;
    const devices: { tag: string; attrs: Record<string, string> }[] = [{ tag: 'device', attrs: { id: '0' } }];
    if (this.usync === 'answer') devices.push({ tag: 'device', attrs: { id: '7', 'key-index': '2' } });
    // WhatsApp's answer as a binary node, parsed by Baileys' own USync parser.
    return query.parseUSyncQueryResult({
      tag: 'iq',
      attrs: { type: 'result' },
      content: [
        {
          tag: 'usync',
          attrs: {},
          content: [
            {
              tag: 'list',
              attrs: {},
              content: query.users.map((u) => ({
                tag: 'user',
                attrs: { jid: u.id ?? '' },
                content: [
                  {
                    tag: 'devices',
                    attrs: {},
                    content: [{ tag: 'device-list', attrs: {}, content: devices }],
                  },
                ],
              })),
            },
          ],
        },
      ],
    });
  };

  readonly pairingRequests: string[] = [];
  requestPairingCode: WaSocket['requestPairingCode'] = async (phone) => {
    this.pairingRequests.push(phone);
    return 'ABCD1234';
  };

  end: WaSocket['end'] = async (error) => {
    if (this.ended) return;
    this.ended = true;
    const wasOpen = this.isOpen;
    this.isOpen = false;
    if (wasOpen || error) {
      this.emit('connection.update', { connection: 'close', lastDisconnect: { error, date: new Date() } });
    }
  };

  logout: WaSocket['logout'] = async () => {
    this.loggedOut = true;
    await this.end(boom(DisconnectReason.loggedOut, 'Intentional Logout'));
  };
}

export function fakeSockets(onCreate?: (s: FakeSocket) => void): {
  makeSocket: MakeSocket;
  sockets: FakeSocket[];
} {
  const sockets: FakeSocket[] = [];
  return {
    sockets,
    makeSocket: (config) => {
      const s = new FakeSocket(config);
      sockets.push(s);
      onCreate?.(s);
      return s;
    },
  };
}
