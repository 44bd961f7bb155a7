// Every close-code row, driven through the channel with a fake socket and a manual scheduler.
import { describe, expect, it, vi } from 'vitest';
import { linkState } from '../../../src/channels/whatsapp/auth-store.js';
import { whatsappAuthStore } from '../../../src/store/sqlite/whatsapp-auth.js';
import type { FakeSocket } from './fake-socket.js';
import { setup } from './harness.js';

/** At most one socket may have the channel's listeners attached at any time. */
function liveSockets(sockets: FakeSocket[]): number {
  return sockets.filter((s) => s.listenerCount() > 0).length;
}

describe('WhatsApp connection lifecycle', () => {
  it('reports connecting, then connected with the account once open', async () => {
    const h = await setup();
    await h.channel.start(async () => ({ type: 'stored', inboxId: 1 }));
    expect(h.channel.status()).toMatchObject({ type: 'connecting' });
    h.sock().open();
    expect(h.channel.status()).toMatchObject({ type: 'connected', account: '+15550001111' });
  });

  it('creates the socket with no online presence and no full history sync', async () => {
    const h = await setup();
    await h.start();
    const cfg = h.sock().config;
    expect(cfg.markOnlineOnConnect).toBe(false);
    expect(cfg.syncFullHistory).toBe(false);
    expect(cfg.generateHighQualityLinkPreview).toBe(false);
    expect(cfg.shouldIgnoreJid?.('status@broadcast')).toBe(true);
    expect(cfg.shouldIgnoreJid?.('120363@newsletter')).toBe(true);
    expect(cfg.shouldIgnoreJid?.('15551234567@s.whatsapp.net')).toBe(false);
  });

  it('401: relink required, no reconnect, credentials kept and marked logged out', async () => {
    const h = await setup();
    const s = await h.start();
    s.close(401, 'Connection Failure');
    expect(h.channel.status()).toMatchObject({ type: 'relink_required' });
    expect(h.scheduler.pending.size).toBe(0);
    expect(h.sockets).toHaveLength(1);
    // Marked by a write the channel does not wait for: the store may answer later.
    await vi.waitFor(async () => expect(await linkState(whatsappAuthStore(h.db))).toBe('logged_out'));
    expect(h.db.prepare('SELECT count(*) AS n FROM wa_creds').get()).toEqual({ n: 1 });
    // Nothing retries: the log tells the operator what to do.
    expect(h.logs).toContainEqual(
      expect.objectContaining({ level: 50, msg: expect.stringMatching(/stopped: .*agentwire login/) }),
    );
    // A restart does not knock on WhatsApp's door with dead credentials.
    await h.channel.stop();
    await h.channel.start(async () => ({ type: 'duplicate' }));
    expect(h.sockets).toHaveLength(1);
    expect(h.channel.status()).toMatchObject({ type: 'relink_required' });
    expect(h.logs.at(-1)).toMatchObject({ level: 50, msg: expect.stringMatching(/not started: .*login/) });
  });

  it('403: relink required, no reconnect, creds not marked logged out', async () => {
    const h = await setup();
    const s = await h.start();
    s.close(403);
    expect(h.channel.status()).toMatchObject({ type: 'relink_required' });
    expect(h.scheduler.pending.size).toBe(0);
    expect(await linkState(whatsappAuthStore(h.db))).toBe('linked');
  });

  it('440: stops without a reconnect loop and says why', async () => {
    const h = await setup();
    const s = await h.start();
    s.close(440, 'conflict');
    const st = h.channel.status();
    expect(st).toMatchObject({ type: 'degraded' });
    expect(st.type === 'degraded' && st.lastError).toMatch(/440/);
    expect(h.logs).toContainEqual(
      expect.objectContaining({ level: 50, msg: expect.stringMatching(/stopped: .*440/) }),
    );
    expect(h.scheduler.pending.size).toBe(0);
    h.scheduler.fire();
    expect(h.sockets).toHaveLength(1);
    expect(liveSockets(h.sockets)).toBe(0);
  });

  it('515: exactly one fresh socket, at once, old listeners removed', async () => {
    const h = await setup();
    const s = await h.start();
    s.close(515, 'restart required');
    expect(h.sockets).toHaveLength(2);
    expect(s.listenerCount()).toBe(0);
    expect(liveSockets(h.sockets)).toBe(1);
    expect(h.scheduler.pending.size).toBe(0);
    expect(h.channel.status()).toMatchObject({ type: 'connecting' });
    h.sock().open();
    expect(h.channel.status()).toMatchObject({ type: 'connected' });
  });

  it.each([408, 428, 500, 503, 999, undefined])(
    '%s: backoff with jitter, one socket at a time, old listeners removed',
    async (code) => {
      const h = await setup({ deps: { random: () => 0 } });
      const s = await h.start();
      s.close(code);
      expect(h.channel.status().type).toBe('connecting');
      expect(h.sockets).toHaveLength(1);
      expect(s.listenerCount()).toBe(0);
      expect(h.scheduler.delays()).toEqual([1500]); // 2 s minus 25 % jitter
      h.scheduler.fire();
      expect(h.sockets).toHaveLength(2);
      expect(liveSockets(h.sockets)).toBe(1);
      h.sock().open();
      expect(h.channel.status().type).toBe('connected');
    },
  );

  it('backs off exponentially, then is visibly degraded and keeps retrying slowly', async () => {
    const h = await setup();
    await h.start();
    const delays: number[] = [];
    for (let i = 0; i < 14; i++) {
      h.sock().close(503);
      expect(h.channel.status().type).not.toBe('connected');
      delays.push(...h.scheduler.delays());
      expect(h.scheduler.pending.size).toBe(1);
      h.scheduler.fire();
      expect(liveSockets(h.sockets)).toBe(1);
    }
    expect(delays.slice(0, 6)).toEqual([2000, 3600, 6480, 11664, 20995, 30000]);
    expect(delays.slice(11, 14)).toEqual([30000, 300000, 300000]);
    const st = h.channel.status();
    expect(st).toMatchObject({ type: 'degraded', retries: 14 });
    expect(st.type === 'degraded' && st.lastError).toMatch(/503/);
    expect(h.states.some((x) => x.type === 'connected' && x.since > 0)).toBe(true); // only the first open
    h.sock().open();
    expect(h.channel.status().type).toBe('connected');
    h.sock().close(428);
    expect(h.scheduler.delays()).toEqual([2000]); // the budget starts over after a real open
  });

  it('ignores late events from a replaced socket', async () => {
    const h = await setup();
    const first = await h.start();
    first.close(515);
    first.close(503); // a stale close: must not schedule anything or spawn a socket
    first.open();
    expect(h.sockets).toHaveLength(2);
    expect(h.scheduler.pending.size).toBe(0);
    expect(h.channel.status().type).toBe('connecting');
  });

  it('publishes the QR while linking, and an expired QR asks for login', async () => {
    const h = await setup({ linked: false });
    await h.channel.start(async () => ({ type: 'duplicate' }));
    h.sock().emit('connection.update', { qr: '2@abc,def' });
    expect(h.channel.status()).toMatchObject({ type: 'connecting', qr: '2@abc,def' });
    h.sock().close(408, 'QR refs attempts ended');
    expect(h.channel.status()).toMatchObject({ type: 'relink_required' });
    expect(h.logs).toContainEqual(expect.objectContaining({ msg: expect.stringMatching(/QR code expired/) }));
    expect(h.scheduler.pending.size).toBe(0);
  });

  it('not linked and offline: retried with backoff and reported unreachable, never as an expired QR', async () => {
    const h = await setup({ linked: false });
    await h.channel.start(async () => ({ type: 'duplicate' }));
    // Baileys' close when DNS fails: a 408 (getCodeFromWSError), before any QR was shown.
    h.sock().close(408, 'WebSocket Error (getaddrinfo EAI_AGAIN web.whatsapp.com)');
    const st = h.channel.status();
    expect(st).toMatchObject({ type: 'connecting', retries: 1 });
    expect(st.type === 'connecting' && st.lastError).toMatch(/^WhatsApp is unreachable: .*EAI_AGAIN/);
    expect(h.scheduler.pending.size).toBe(1);
    expect(h.logs).toContainEqual(
      expect.objectContaining({ level: 40, reason: expect.stringMatching(/unreachable: .*EAI_AGAIN/) }),
    );
    expect(h.logs.some((l) => /QR code expired/.test(String(l.msg)))).toBe(false);
    // The network comes back: the next socket shows a QR, and only its expiry asks for a login.
    h.scheduler.fire();
    h.sock().emit('connection.update', { qr: '2@abc,def' });
    expect(h.channel.status()).toMatchObject({ type: 'connecting', qr: '2@abc,def' });
    h.sock().close(408, 'QR refs attempts ended');
    expect(h.channel.status()).toMatchObject({ type: 'relink_required' });
  });

  it('first run without a link: QR in the status, scan, 515, then connected and stored', async () => {
    const h = await setup({ linked: false });
    expect(await linkState(whatsappAuthStore(h.db))).toBe('unlinked');
    await h.channel.start(async () => ({ type: 'duplicate' }));
    h.sock().emit('connection.update', { qr: 'ref,pub,id,adv' });
    expect(h.channel.status()).toMatchObject({ type: 'connecting', qr: 'ref,pub,id,adv' });
    h.sock().emit('creds.update', {
      me: { id: '15550001111:9@s.whatsapp.net', lid: '99990001111:9@lid' },
      account: { details: Buffer.from('d') },
    });
    h.sock().close(515);
    expect(h.sockets).toHaveLength(2);
    h.sock().open();
    expect(h.channel.status()).toMatchObject({ type: 'connected', account: '+15550001111' });
    await vi.waitFor(async () => expect(await linkState(whatsappAuthStore(h.db))).toBe('linked'));
  });

  it('stop ends the socket, cancels the pending retry and reports stopped', async () => {
    const h = await setup();
    const s = await h.start();
    s.close(503);
    expect(h.scheduler.pending.size).toBe(1);
    await h.channel.stop();
    expect(h.scheduler.pending.size).toBe(0);
    expect(h.channel.status()).toEqual({ type: 'stopped' });
    await h.channel.start(async () => ({ type: 'duplicate' }));
    h.sock().open();
    await h.channel.stop();
    expect(h.sock().ended).toBe(true);
    expect(liveSockets(h.sockets)).toBe(0);
  });

  it('is disabled when whatsapp.enabled is false and opens nothing', async () => {
    const h = await setup({ config: { whatsapp: { enabled: false } } });
    await h.channel.start(async () => ({ type: 'duplicate' }));
    expect(h.channel.status()).toEqual({ type: 'disabled' });
    expect(h.sockets).toHaveLength(0);
  });
});
