// Linking and unlinking the device. Used by `agentwire login` / `logout`, and by the relay's first
// run when no device is linked yet. The QR is rendered here from `connection.update` (Baileys'
// printQRInTerminal is deprecated); WhatsApp closes with 515 right after a scan, which is expected.
import type { BaileysEventMap } from '@whiskeysockets/baileys';
import QRCode from 'qrcode';
import type { Logger } from '../../log.js';
import type { WhatsAppStore } from '../../store/store.js';
import { isLinkedCreds, linkState, loadAuth, type WaAuth } from './auth-store.js';
import { closeCodeOf, decideOnClose } from './close-policy.js';
import { e164FromJid } from './jid.js';
import { defaultMakeSocket, type MakeSocket, socketConfig, type WaSocket } from './socket.js';

export interface LoginDeps {
  /** The channel's state in the store (credentials, keys, sent ids, chat JIDs). */
  store: WhatsAppStore;
  log: Logger;
  /** Where instructions, the QR and the pairing code go (the terminal). */
  out: (text: string) => void;
  makeSocket?: MakeSocket;
  /** E.164: show a pairing code for this number instead of a QR. */
  pairPhone?: string;
  renderQr?: (qr: string) => Promise<string>;
  timeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

export type LoginResult =
  | { ok: true; account?: string; alreadyLinked: boolean }
  | { ok: false; error: string };

/** The QR as terminal text (the relay's first run renders `status().qr` with it too). */
export const renderTerminalQr = (qr: string): Promise<string> =>
  QRCode.toString(qr, { type: 'terminal', small: true });

const accountOf = (auth: WaAuth) => e164FromJid(auth.state.creds.me?.id);

/** One socket at a time until it opens, fails for good, or 515 asks for the next one. */
function attempt(auth: WaAuth, deps: LoginDeps, showCode: (sock: WaSocket, qr: string) => Promise<void>) {
  const sock = (deps.makeSocket ?? defaultMakeSocket)(socketConfig(auth.state, deps.log));
  let qrShown = false;
  return new Promise<
    { type: 'open' } | { type: 'closed'; code?: number; message?: string; qrShown: boolean }
  >((resolve, reject) => {
    const onCreds = (u: BaileysEventMap['creds.update']) => {
      Object.assign(auth.state.creds, u);
      // A link whose keys cannot be stored is worse than no link: stop and say so.
      auth
        .saveCreds()
        .catch((err: Error) => reject(new Error(`could not save the credentials: ${err.message}`)));
    };
    const onUpdate = (u: BaileysEventMap['connection.update']) => {
      if (u.qr) {
        qrShown = true;
        showCode(sock, u.qr).catch(reject);
      }
      if (u.connection === 'open') {
        detach();
        void sock.end(undefined);
        resolve({ type: 'open' });
      } else if (u.connection === 'close') {
        detach();
        const err = u.lastDisconnect?.error;
        const code = closeCodeOf(err);
        resolve({
          type: 'closed',
          qrShown,
          ...(code !== undefined ? { code } : {}),
          ...(err ? { message: err.message } : {}),
        });
      }
    };
    const detach = () => {
      sock.ev.off('creds.update', onCreds);
      sock.ev.off('connection.update', onUpdate);
    };
    sock.ev.on('creds.update', onCreds);
    sock.ev.on('connection.update', onUpdate);
  });
}

export async function runLogin(deps: LoginDeps): Promise<LoginResult> {
  const state = await linkState(deps.store.auth);
  if (state === 'linked') {
    const loaded = await loadAuth(deps.store.auth);
    return loaded.ok ? { ok: true, alreadyLinked: true, account: accountOf(loaded.auth) } : loaded;
  }
  if (state === 'logged_out') {
    const old = await loadAuth(deps.store.auth);
    if (old.ok) await old.auth.clear();
    deps.out('The phone removed the previous link, so its old credentials were deleted. Linking again.\n');
  }
  const loaded = await loadAuth(deps.store.auth);
  if (!loaded.ok) return loaded;
  const auth = loaded.auth;
  const render = deps.renderQr ?? renderTerminalQr;
  let codeRequested = false;
  const showCode = async (sock: WaSocket, qr: string) => {
    if (deps.pairPhone) {
      if (codeRequested) return;
      codeRequested = true;
      const code = await sock.requestPairingCode(deps.pairPhone.replace(/\D/g, ''));
      const pretty = code.length === 8 ? `${code.slice(0, 4)}-${code.slice(4)}` : code;
      deps.out(
        `Pairing code: ${pretty}\nOn your phone: WhatsApp → Settings → Linked devices → Link a device → Link with phone number instead, then enter the code.\n`,
      );
      return;
    }
    deps.out(
      `${await render(qr)}\nScan with your phone: WhatsApp → Settings → Linked devices → Link a device.\n`,
    );
  };
  const run = async (): Promise<LoginResult> => {
    let failures = 0;
    let restarts = 0;
    // Offline, the first socket takes seconds to fail and the retries below tens more: say what is
    // going on before the wait, not only its outcome.
    deps.out('Connecting to WhatsApp…\n');
    for (;;) {
      const r = await attempt(auth, deps, showCode);
      if (r.type === 'open') {
        await auth.saveCreds(); // the last creds.update may still be in flight
        return { ok: true, alreadyLinked: false, account: accountOf(auth) };
      }
      const action = decideOnClose({
        code: r.code,
        message: r.message,
        linked: isLinkedCreds(auth.state.creds),
        qrShown: r.qrShown,
        failures,
        restartsInRow: restarts,
        random: Math.random(),
      });
      if (action.type === 'restart') restarts += 1;
      else if (action.type === 'retry' && action.attempt <= 3) {
        failures = action.attempt;
        deps.out(`${action.reason}. Trying again in ${Math.max(1, Math.round(action.delayMs / 1000))} s…\n`);
        await (deps.sleep ?? ((ms) => new Promise((res) => setTimeout(res, ms))))(action.delayMs);
      } else {
        return {
          ok: false,
          error: action.type === 'retry' ? `Linking failed: ${action.reason}` : action.reason,
        };
      }
    }
  };
  const timeoutMs = deps.timeoutMs ?? 5 * 60_000;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<LoginResult>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, error: 'Linking timed out.' }), timeoutMs);
  });
  try {
    return await Promise.race([
      run().catch((err: Error) => ({ ok: false as const, error: err.message })),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export type LogoutResult =
  | { ok: true; wasLinked: boolean; unlinkedOnPhone: boolean }
  | { ok: false; error: string };

/** Unlinks the device on WhatsApp when it can reach it, then removes the local credentials. */
export async function runLogout(
  deps: Omit<LoginDeps, 'out' | 'pairPhone' | 'renderQr'>,
): Promise<LogoutResult> {
  const state = await linkState(deps.store.auth);
  if (state === 'unlinked') return { ok: true, wasLinked: false, unlinkedOnPhone: false };
  const loaded = await loadAuth(deps.store.auth);
  let unlinkedOnPhone = false;
  if (loaded.ok && state === 'linked') {
    const sock = (deps.makeSocket ?? defaultMakeSocket)(socketConfig(loaded.auth.state, deps.log));
    unlinkedOnPhone = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => finish(false), deps.timeoutMs ?? 20_000);
      let loggingOut = false;
      const onUpdate = (u: BaileysEventMap['connection.update']) => {
        if (u.connection === 'open' && !loggingOut) {
          loggingOut = true; // logout() itself ends the socket with a close (401)
          sock.logout().then(
            () => finish(true),
            () => finish(false),
          );
        } else if (u.connection === 'close' && !loggingOut) finish(false);
      };
      const finish = (ok: boolean) => {
        clearTimeout(timer);
        sock.ev.off('connection.update', onUpdate);
        void sock.end(undefined).catch(() => undefined);
        resolve(ok);
      };
      sock.ev.on('connection.update', onUpdate);
    });
  }
  if (loaded.ok) await loaded.auth.clear();
  else await deps.store.auth.forget();
  return { ok: true, wasLinked: true, unlinkedOnPhone };
}
