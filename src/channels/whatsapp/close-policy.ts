// Pure: what to do when the WhatsApp socket closes, as a table over the close code (research A1/A2).
// Terminal codes never loop; transient ones back off with jitter and, past the budget, keep retrying
// slowly in a visible degraded state instead of exiting silently (openclaw#2603).
import { DisconnectReason } from '@whiskeysockets/baileys';

export interface BackoffSettings {
  initialMs: number;
  factor: number;
  maxMs: number;
  /** ± fraction applied to every delay so many relays do not reconnect in lockstep. */
  jitter: number;
  /** Fast attempts before the channel reports itself degraded. */
  budget: number;
  /** Delay between attempts once degraded. */
  slowMs: number;
  /** 515 restarts in a row before they are treated as ordinary failures. */
  maxRestarts: number;
}

export const DEFAULT_BACKOFF: BackoffSettings = {
  initialMs: 2_000,
  factor: 1.8,
  maxMs: 30_000,
  jitter: 0.25,
  budget: 12,
  slowMs: 300_000,
  maxRestarts: 3,
};

export type CloseAction =
  | { type: 'relink'; reason: string; loggedOut: boolean }
  | { type: 'replaced'; reason: string }
  | { type: 'qr_expired'; reason: string }
  | { type: 'restart' }
  | {
      type: 'retry';
      delayMs: number;
      attempt: number;
      degraded: boolean;
      reason: string;
      /** The network failed (DNS, refused, timed out): WhatsApp could not be reached at all. */
      unreachable: boolean;
    };

export interface CloseInput {
  code: number | undefined;
  message?: string;
  /** Whether the stored creds are a completed link (a QR timeout before linking is not a network error). */
  linked: boolean;
  /**
   * Whether this socket showed a QR code. Baileys closes with 408 both when the QR refs run out and
   * when the network fails (its getCodeFromWSError maps every E* socket error, EAI_AGAIN included,
   * to 408): only a shown QR can have expired.
   */
  qrShown?: boolean;
  /** Failed attempts since the last successful open, not counting this one. */
  failures: number;
  restartsInRow: number;
  /** A number in [0, 1), injected so the policy stays pure. */
  random: number;
}

/** The status code Baileys puts on a close: a Boom's `output.statusCode`. */
export function closeCodeOf(err: unknown): number | undefined {
  const e = err as { output?: { statusCode?: unknown } } | undefined;
  const code = e?.output?.statusCode;
  return typeof code === 'number' ? code : undefined;
}

export function describeClose(code: number | undefined, message?: string): string {
  const what = code === undefined ? 'connection closed' : `connection closed (${code})`;
  return message ? `${what}: ${message}` : what;
}

// Socket errors that mean WhatsApp's servers were never reached or stopped answering. Baileys wraps
// them as "WebSocket Error (<message>)" with code 408 (or 500 for the rest).
const NETWORK =
  /\b(EAI_AGAIN|ENOTFOUND|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|ENETDOWN|EPIPE)\b|getaddrinfo|socket hang up|timed out|Connection was lost/i;

/** True when a close says the network, not WhatsApp, is the problem. */
export function isNetworkFailure(code: number | undefined, message: string | undefined): boolean {
  if (message && NETWORK.test(message)) return true;
  return code === DisconnectReason.connectionLost && !message;
}

export function retryDelay(attempt: number, random: number, s: BackoffSettings = DEFAULT_BACKOFF): number {
  const base = attempt > s.budget ? s.slowMs : Math.min(s.maxMs, s.initialMs * s.factor ** (attempt - 1));
  return Math.round(base * (1 + s.jitter * (2 * random - 1)));
}

export function decideOnClose(input: CloseInput, s: BackoffSettings = DEFAULT_BACKOFF): CloseAction {
  const { code } = input;
  switch (code) {
    case DisconnectReason.loggedOut:
      return {
        type: 'relink',
        loggedOut: true,
        reason: 'WhatsApp logged this device out (401). Run `agentwire login` to link again.',
      };
    case DisconnectReason.forbidden:
    case 419:
      return {
        type: 'relink',
        loggedOut: false,
        reason: `WhatsApp refused this account (${code}): it may be locked or banned. Check the phone, then run \`agentwire login\`.`,
      };
    case DisconnectReason.multideviceMismatch:
      return {
        type: 'relink',
        loggedOut: false,
        reason: 'WhatsApp reported a multi-device mismatch (411). Run `agentwire login` to link again.',
      };
    case DisconnectReason.connectionReplaced:
      return {
        type: 'replaced',
        reason:
          'Another WhatsApp Web session took over this link (440). Not reconnecting, so the two do not keep kicking each other off: stop the other relay or client, then restart agentwire.',
      };
    case DisconnectReason.restartRequired:
      if (input.restartsInRow < s.maxRestarts) return { type: 'restart' };
      break;
    case DisconnectReason.timedOut:
      // A QR that was never shown cannot have expired: without one, 408 is the network.
      if (!input.linked && input.qrShown && !isNetworkFailure(code, input.message)) {
        return {
          type: 'qr_expired',
          reason: 'The QR code expired before it was scanned. Run `agentwire login` to try again.',
        };
      }
      break;
  }
  const attempt = input.failures + 1;
  const unreachable = isNetworkFailure(code, input.message);
  return {
    type: 'retry',
    attempt,
    delayMs: retryDelay(attempt, input.random, s),
    degraded: attempt > s.budget,
    reason: unreachable
      ? `WhatsApp is unreachable: ${input.message ?? `close code ${code}`}`
      : describeClose(code, input.message),
    unreachable,
  };
}
