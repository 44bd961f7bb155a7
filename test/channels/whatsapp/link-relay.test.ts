// `agentwire login` while the relay runs: through the real control socket to the real
// WhatsApp channel (fake socket at the edge), which starts linking again and publishes its QR codes
// in `status`; the login follows them until the link opens.
import { join } from 'node:path';
import { proto } from '@whiskeysockets/baileys';
import { afterEach, describe, expect, it } from 'vitest';
import { linkState } from '../../../src/channels/whatsapp/auth-store.js';
import { whatsappLinkService } from '../../../src/channels/whatsapp/link-control.js';
import { loginViaRelay } from '../../../src/cli/login-relay.js';
import { callControl } from '../../../src/control/client.js';
import { MethodRegistry } from '../../../src/control/methods.js';
import { type ControlServer, startControlServer } from '../../../src/control/server.js';
import { whatsappAuthStore } from '../../../src/store/sqlite/whatsapp-auth.js';
import { memoryLog } from '../../queue/helpers.js';
import type { FakeSocket } from './fake-socket.js';
import { setup } from './harness.js';

let server: ControlServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function relay(linked = true) {
  const h = await setup({ linked });
  const registry = new MethodRegistry();
  registry.register('status', async () => ({
    pid: process.pid,
    startedAt: 0,
    channels: { whatsapp: h.channel.status() },
    queue: {},
  }));
  whatsappLinkService.create({ channels: new Map([['whatsapp', h.channel]]), control: registry });
  const socket = join(h.dir, 'relay.sock');
  server = await startControlServer(socket, registry, memoryLog().log);
  const out: string[] = [];
  const login = (step: () => void, extra: { timeoutMs?: number; now?: () => number } = {}) =>
    loginViaRelay({
      call: (method, params) => callControl(socket, method, params),
      out: (s) => void out.push(s),
      renderQr: async (qr) => `[QR ${qr}]`,
      sleep: async () => step(),
      ...extra,
    });
  return { h, out, login };
}

function pair(s: FakeSocket): void {
  s.emit('creds.update', {
    me: { id: '15550002222:4@s.whatsapp.net', lid: '99990002222:4@lid', name: 'Owner' },
    account: proto.ADVSignedDeviceIdentity.fromObject({
      details: Buffer.from('d'),
      accountSignatureKey: Buffer.alloc(32, 1),
    }),
  });
  s.close(515, 'restart required');
}

describe('agentwire login through the running relay', () => {
  it('after the phone removed the link: a new QR in the relay, scanned, linked, no restart', async () => {
    const r = await relay();
    const first = await r.h.start();
    first.close(401, 'Connection Failure');
    expect(r.h.channel.status().type).toBe('relink_required');
    let polls = 0;
    const result = await r.login(() => {
      polls++;
      const s = r.h.sock();
      if (polls === 1) s.emit('connection.update', { qr: '2@first' });
      if (polls === 2) s.emit('connection.update', { qr: '2@second' }); // WhatsApp rotates the code
      if (polls === 3) pair(s);
      if (polls === 4) {
        const next = r.h.sock();
        next.user = { id: '15550002222:4@s.whatsapp.net', lid: '99990002222:4@lid' };
        next.open();
      }
    });
    expect(result).toEqual({ ok: true, alreadyLinked: false, account: '+15550002222' });
    expect(r.out.join('')).toContain('[QR 2@first]');
    expect(r.out.join('')).toContain('[QR 2@second]');
    expect(r.out.join('')).toContain('Linked devices → Link a device');
    expect(r.h.sockets.filter((s) => s.listenerCount() > 0)).toHaveLength(1);
    await new Promise((res) => setImmediate(res));
    expect(await linkState(whatsappAuthStore(r.h.db))).toBe('linked');
    expect(r.h.channel.status()).toMatchObject({ type: 'connected', account: '+15550002222' });
  });

  it('already linked and connected: says so, changes nothing', async () => {
    const r = await relay();
    await r.h.start();
    const result = await r.login(() => {});
    expect(result).toEqual({ ok: true, alreadyLinked: true, account: '+15550001111' });
    expect(r.h.sockets).toHaveLength(1);
  });

  it('not linked and offline: reports WhatsApp unreachable while the relay retries, never an expired QR', async () => {
    const r = await relay(false);
    await r.h.channel.start(async () => ({ type: 'duplicate' }));
    r.h.sock().close(408, 'WebSocket Error (getaddrinfo EAI_AGAIN web.whatsapp.com)');
    let t = 0;
    const tick = () => {
      t += 1_000;
    };
    const result = await r.login(tick, { timeoutMs: 3_000, now: () => t });
    expect(result).toEqual({ ok: false, error: 'Linking timed out.' });
    expect(r.out.join('')).toMatch(/WhatsApp is unreachable: .*EAI_AGAIN.*\(the relay keeps retrying\)/);
    expect(r.out.join('')).not.toMatch(/QR code expired/);
  });
});
