// Owns the one live Baileys socket. Single-flight: a new socket is created only after the old one's
// listeners are removed, and at most one reconnect timer is pending, so sleep/wake storms cannot
// start parallel sockets that each answer every message (nanoclaw#91: 5-6x replies).
import type { BaileysEventMap } from '@whiskeysockets/baileys';
import type { Logger } from '../../log.js';
import type { ChannelState } from '../types.js';
import type { WaAuth } from './auth-store.js';
import { isLinkedCreds } from './auth-store.js';
import { type BackoffSettings, closeCodeOf, DEFAULT_BACKOFF, decideOnClose } from './close-policy.js';
import { e164FromJid, ownIds } from './jid.js';
import { type MakeSocket, type SocketHooks, socketConfig, type WaSocket } from './socket.js';

export type Listener = {
  [K in keyof BaileysEventMap]: { event: K; fn: (arg: BaileysEventMap[K]) => void };
}[keyof BaileysEventMap];

export interface Scheduler {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realScheduler: Scheduler = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

export interface ConnectionDeps {
  makeSocket: MakeSocket;
  auth: WaAuth;
  log: Logger;
  hooks: SocketHooks;
  /** Extra listeners bound to each new socket (inbound messages, group events). */
  listeners: (sock: WaSocket) => Listener[];
  onState?: (state: ChannelState) => void;
  scheduler?: Scheduler;
  random?: () => number;
  now?: () => number;
  backoff?: BackoffSettings;
}

export class Connection {
  private sock: WaSocket | undefined;
  private bound: Listener[] = [];
  private timer: unknown;
  private failures = 0;
  private restarts = 0;
  private running = false;
  private open = false;
  /** Whether the current socket showed a QR code (only then can a 408 mean the QR expired). */
  private qrShown = false;
  private current: ChannelState = { type: 'stopped' };
  private readonly scheduler: Scheduler;
  private readonly now: () => number;

  constructor(private readonly deps: ConnectionDeps) {
    this.scheduler = deps.scheduler ?? realScheduler;
    this.now = deps.now ?? Date.now;
  }

  get state(): ChannelState {
    return this.current;
  }

  /** The socket, only while WhatsApp reports it open. */
  get socket(): WaSocket | undefined {
    return this.open ? this.sock : undefined;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.connect();
  }

  /**
   * Drops the current socket and opens a fresh one now (the liveness watchdog, when the link looks
   * open but no longer answers). Single-flight like every reconnect: the old socket's listeners go
   * first, and a pending retry timer is cancelled.
   */
  reconnect(reason: string): void {
    if (!this.running) return;
    this.deps.log.warn({ reason }, 'whatsapp reconnecting');
    this.connect();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.cancelTimer();
    const sock = this.detach();
    this.setState({ type: 'stopped' });
    if (sock) await sock.end(undefined).catch(() => undefined);
  }

  /** Stops for good with a terminal state (relink required, replaced). */
  private halt(state: Extract<ChannelState, { type: 'relink_required' | 'degraded' }>): void {
    this.running = false;
    this.cancelTimer();
    this.setState(state);
    // Nothing retries from here: the operator has to act, so the log says what to do (the reasons
    // name commands and close codes, never numbers or keys).
    const reason = state.type === 'relink_required' ? state.reason : state.lastError;
    this.deps.log.error({ state: state.type }, `whatsapp stopped: ${reason}`);
  }

  private setState(state: ChannelState): void {
    this.current = state;
    this.deps.onState?.(state);
  }

  private cancelTimer(): void {
    if (this.timer !== undefined) this.scheduler.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private detach(): WaSocket | undefined {
    const sock = this.sock;
    if (sock) for (const l of this.bound) sock.ev.off(l.event, l.fn as never);
    this.sock = undefined;
    this.bound = [];
    this.open = false;
    return sock;
  }

  private connect(): void {
    this.cancelTimer();
    const old = this.detach();
    if (old) void old.end(undefined).catch(() => undefined);
    if (this.current.type !== 'connecting' && this.current.type !== 'degraded') {
      this.setState({ type: 'connecting', since: this.now() });
    }
    this.qrShown = false;
    let sock: WaSocket;
    try {
      sock = this.deps.makeSocket(socketConfig(this.deps.auth.state, this.deps.log, this.deps.hooks));
    } catch (err) {
      this.onClose(undefined, (err as Error).message);
      return;
    }
    this.sock = sock;
    const own: Listener[] = [
      { event: 'connection.update', fn: (u) => this.onUpdate(sock, u) },
      { event: 'creds.update', fn: (u) => this.onCreds(u) },
    ];
    this.bound = [...own, ...this.deps.listeners(sock)];
    for (const l of this.bound) sock.ev.on(l.event, l.fn as never);
  }

  private onCreds(update: BaileysEventMap['creds.update']): void {
    Object.assign(this.deps.auth.state.creds, update);
    this.deps.auth.saveCreds().catch((err: Error) => {
      // The stored copy is intact (the write rolled back); Baileys keeps the new creds in memory
      // and the next update writes them again.
      this.deps.log.error({ err: err.message }, 'could not save WhatsApp credentials (disk full?)');
    });
  }

  private onUpdate(sock: WaSocket, u: BaileysEventMap['connection.update']): void {
    if (sock !== this.sock) return; // a stale socket's late event
    if (u.qr) {
      this.qrShown = true;
      this.setState({ type: 'connecting', since: this.now(), qr: u.qr });
    }
    if (u.connection === 'open') {
      this.open = true;
      this.failures = 0;
      this.restarts = 0;
      const account = e164FromJid(ownIds(sock.user).pn);
      this.setState(
        account
          ? { type: 'connected', since: this.now(), account }
          : { type: 'connected', since: this.now() },
      );
      this.deps.log.info('whatsapp connected');
    } else if (u.connection === 'close') {
      this.detach();
      const err = u.lastDisconnect?.error;
      this.onClose(closeCodeOf(err), err?.message);
    }
  }

  private onClose(code: number | undefined, message: string | undefined): void {
    if (!this.running) return;
    const action = decideOnClose(
      {
        code,
        message,
        linked: isLinkedCreds(this.deps.auth.state.creds),
        qrShown: this.qrShown,
        failures: this.failures,
        restartsInRow: this.restarts,
        random: (this.deps.random ?? Math.random)(),
      },
      this.deps.backoff ?? DEFAULT_BACKOFF,
    );
    // The reason names the network error (e.g. getaddrinfo EAI_AGAIN web.whatsapp.com), never a
    // number: at warn level, so "unreachable" is visible without debug logging.
    const reason = action.type === 'retry' ? action.reason : undefined;
    this.deps.log.warn(
      { code, action: action.type, ...(reason && { reason }) },
      'whatsapp connection closed',
    );
    switch (action.type) {
      case 'relink':
        if (action.loggedOut)
          void this.deps.auth
            .markLoggedOut()
            .catch((err: unknown) =>
              this.deps.log.error({ err }, 'could not store that WhatsApp logged out'),
            );
        this.halt({ type: 'relink_required', since: this.now(), reason: action.reason });
        return;
      case 'qr_expired':
        this.halt({ type: 'relink_required', since: this.now(), reason: action.reason });
        return;
      case 'replaced':
        this.halt({ type: 'degraded', since: this.now(), lastError: action.reason, retries: this.failures });
        return;
      case 'restart':
        this.restarts += 1;
        this.connect();
        return;
      case 'retry':
        this.failures = action.attempt;
        if (action.degraded) {
          const since = this.current.type === 'degraded' ? this.current.since : this.now();
          this.setState({ type: 'degraded', since, lastError: action.reason, retries: action.attempt });
        } else {
          const since = this.current.type === 'connecting' ? this.current.since : this.now();
          this.setState({ type: 'connecting', since, lastError: action.reason, retries: action.attempt });
        }
        this.timer = this.scheduler.setTimeout(() => {
          this.timer = undefined;
          if (this.running) this.connect();
        }, action.delayMs);
        return;
      default: {
        const never: never = action;
        throw new Error(`unhandled close action ${JSON.stringify(never)}`);
      }
    }
  }
}
