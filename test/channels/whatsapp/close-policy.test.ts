import { describe, expect, it } from 'vitest';
import {
  closeCodeOf,
  DEFAULT_BACKOFF,
  decideOnClose,
  retryDelay,
} from '../../../src/channels/whatsapp/close-policy.js';
import { boom } from './fake-socket.js';

const base = { linked: true, failures: 0, restartsInRow: 0, random: 0.5 };

describe('decideOnClose (table)', () => {
  it.each([
    [401, 'relink', { loggedOut: true }],
    [403, 'relink', { loggedOut: false }],
    [419, 'relink', { loggedOut: false }],
    [411, 'relink', { loggedOut: false }],
    [440, 'replaced', {}],
    [515, 'restart', {}],
    [408, 'retry', { attempt: 1, delayMs: 2000, degraded: false }],
    [428, 'retry', { attempt: 1, delayMs: 2000, degraded: false }],
    [500, 'retry', { attempt: 1, delayMs: 2000, degraded: false }],
    [503, 'retry', { attempt: 1, delayMs: 2000, degraded: false }],
    [405, 'retry', { attempt: 1 }],
    [999, 'retry', { attempt: 1 }],
    [undefined, 'retry', { attempt: 1 }],
  ])('%s → %s', (code, type, extra) => {
    expect(decideOnClose({ ...base, code })).toMatchObject({ type, ...extra });
  });

  it('408 before the device was ever linked is an expired QR only when a QR was shown', () => {
    const notLinked = { ...base, linked: false };
    expect(
      decideOnClose({ ...notLinked, code: 408, qrShown: true, message: 'QR refs attempts ended' }),
    ).toMatchObject({
      type: 'qr_expired',
    });
    expect(decideOnClose({ ...notLinked, code: 428 })).toMatchObject({ type: 'retry' });
  });

  // Not yet linked, the network fails before any QR: Baileys closes with 408 for every
  // socket error whose code starts with E (getCodeFromWSError), 500 for the rest.
  it.each([
    [408, 'WebSocket Error (getaddrinfo EAI_AGAIN web.whatsapp.com)', false],
    [408, 'WebSocket Error (getaddrinfo ENOTFOUND web.whatsapp.com)', false],
    [408, 'WebSocket Error (connect ECONNREFUSED 157.240.1.1:443)', false],
    [408, 'WebSocket Error (connect ETIMEDOUT 157.240.1.1:443)', false],
    [408, 'WebSocket Error (connect ENETUNREACH 157.240.1.1:443)', false],
    [500, 'WebSocket Error (socket hang up)', false],
    [408, 'Connection was lost', false],
    // A QR was shown, then the network failed: still the network, not an expired QR.
    [408, 'WebSocket Error (getaddrinfo EAI_AGAIN web.whatsapp.com)', true],
  ])('not linked, %s %s (QR shown: %s) → retry, unreachable', (code, message, qrShown) => {
    const a = decideOnClose({ ...base, linked: false, qrShown, code, message });
    expect(a).toMatchObject({ type: 'retry', attempt: 1, unreachable: true });
    expect(a.type === 'retry' && a.reason).toMatch(/^WhatsApp is unreachable: /);
  });

  it('a linked device whose network fails is unreachable too; a server close is not', () => {
    const net = decideOnClose({ ...base, code: 408, message: 'WebSocket Error (getaddrinfo EAI_AGAIN x)' });
    expect(net).toMatchObject({ type: 'retry', unreachable: true });
    expect(decideOnClose({ ...base, code: 503, message: 'Stream Errored' })).toMatchObject({
      type: 'retry',
      unreachable: false,
    });
  });

  it('515 in a loop stops being an immediate restart', () => {
    expect(decideOnClose({ ...base, code: 515, restartsInRow: 2 }).type).toBe('restart');
    expect(decideOnClose({ ...base, code: 515, restartsInRow: 3 }).type).toBe('retry');
  });

  it('is degraded once the fast budget is spent, with a slow delay', () => {
    const last = decideOnClose({ ...base, code: 503, failures: DEFAULT_BACKOFF.budget - 1 });
    expect(last).toMatchObject({ type: 'retry', degraded: false, attempt: 12, delayMs: 30_000 });
    const over = decideOnClose({ ...base, code: 503, failures: DEFAULT_BACKOFF.budget, message: 'boom' });
    expect(over).toMatchObject({ type: 'retry', degraded: true, attempt: 13, delayMs: 300_000 });
    expect(over.type === 'retry' && over.reason).toBe('connection closed (503): boom');
  });
});

describe('retryDelay', () => {
  it('grows by 1.8 from 2 s and caps at 30 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((a) => retryDelay(a, 0.5))).toEqual([
      2000, 3600, 6480, 11664, 20995, 30000, 30000,
    ]);
  });

  it('applies ±25 % jitter', () => {
    expect(retryDelay(1, 0)).toBe(1500);
    expect(retryDelay(1, 0.999999)).toBe(2500);
    expect(retryDelay(20, 0)).toBe(225_000);
  });
});

describe('closeCodeOf', () => {
  it('reads the Boom status code', () => {
    expect(closeCodeOf(boom(440))).toBe(440);
    expect(closeCodeOf(new Error('plain'))).toBeUndefined();
    expect(closeCodeOf(undefined)).toBeUndefined();
  });
});
