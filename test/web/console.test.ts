// The console over real HTTP on 127.0.0.1: the token gate, the cookie hand-off, /healthz, the JSON.
import { statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildSnapshot } from '../../src/ops/status/snapshot.js';
import { startWebConsole, type WebConsole } from '../../src/web/server.js';
import { ensureConsoleToken } from '../../src/web/token.js';
import { tempDir } from '../helpers/tmp.js';
import { FakeWhatsapp, fakeStatus } from './fake-status.js';

const TOKEN = 'test-token-0123456789abcdef';
let open: WebConsole[] = [];
afterEach(async () => {
  await Promise.all(open.map((c) => c.close()));
  open = [];
});

async function start(
  wa = new FakeWhatsapp(),
  status = fakeStatus(wa),
  whatsappLink?: () => Promise<unknown>,
) {
  const c = await startWebConsole({
    host: '127.0.0.1',
    port: 0,
    token: TOKEN,
    status,
    whatsappQr: () => wa.qr(),
    ...(whatsappLink && { whatsappLink }),
  });
  open.push(c);
  return { c, wa, base: `http://127.0.0.1:${c.port}` };
}

describe('ensureConsoleToken', () => {
  it('makes a random token once, private, and keeps it across restarts', () => {
    const home = join(tempDir('aw-web-'), 'state');
    const a = ensureConsoleToken(home);
    expect(a).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(statSync(join(home, 'console.token')).mode & 0o777).toBe(0o600);
    expect(statSync(home).mode & 0o777).toBe(0o700);
    expect(ensureConsoleToken(home)).toBe(a);
    const other = join(tempDir('aw-web-'), 'state');
    expect(ensureConsoleToken(other)).not.toBe(a);
  });

  it('replaces a damaged token file', () => {
    const home = tempDir('aw-web-');
    writeFileSync(join(home, 'console.token'), 'x\n', { mode: 0o644 });
    const t = ensureConsoleToken(home);
    expect(t.length).toBeGreaterThanOrEqual(32);
    expect(statSync(join(home, 'console.token')).mode & 0o777).toBe(0o600);
  });
});

describe('startWebConsole', () => {
  it('prints a URL with the token on the bound address', async () => {
    const { c } = await start();
    expect(c.url).toBe(`http://127.0.0.1:${c.port}/?token=${TOKEN}`);
  });

  it('refuses every page and the JSON without the token, showing no data', async () => {
    const { base, wa } = await start();
    wa.emitQr('2@QRPAYLOAD,one');
    for (const [path, headers] of [
      ['/', { accept: 'text/html' }],
      ['/api/status', { accept: 'application/json' }],
      ['/?token=wrong-token-wrong-token', { accept: 'text/html' }],
      ['/api/status', { authorization: 'Bearer nope' }],
      ['/api/status', { cookie: 'agentwire_console=nope' }],
    ] as const) {
      const r = await fetch(base + path, { headers, redirect: 'manual' });
      expect(r.status, path).toBe(401);
      const body = await r.text();
      for (const leak of ['4567', 'claude', 'QRPAYLOAD', 'data:image', 'Health'])
        expect(body, `${path} leaks ${leak}`).not.toContain(leak);
    }
  });

  it('trades the query token for an HttpOnly cookie and a clean address, then serves the page', async () => {
    const { base } = await start();
    const r = await fetch(`${base}/?token=${TOKEN}`, {
      headers: { accept: 'text/html' },
      redirect: 'manual',
    });
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toBe('/');
    const cookie = r.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/agentwire_console=test-token-0123456789abcdef/);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    const page = await fetch(`${base}/`, { headers: { cookie: cookie.split(';')[0] as string } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Health: down · 0 of 1 channels connected · relay pid 4242');
    expect(html).toContain('whatsapp:…4567');
    expect(html).not.toContain('+15551234567');
    const csp = page.headers.get('content-security-policy') ?? '';
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(html).toContain(`<script nonce="${nonce}">`);
    // The first draw names what started each run and labels the clock.
    expect(html).toContain('<th>time (UTC)</th><th>chat</th><th>started by</th>');
    expect(html).toContain('<td>whatsapp:…4567</td><td>message</td><td>claude</td>');
  });

  it('says "No runs yet." and "None." instead of drawing empty tables', async () => {
    const wa = new FakeWhatsapp();
    const empty = () =>
      buildSnapshot({
        now: Date.now(),
        source: 'relay',
        relay: { running: true, pid: 1 },
        channels: [{ name: 'whatsapp', state: wa.state }],
      });
    const { base } = await start(wa, empty);
    const html = await (await fetch(`${base}/`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    expect(html).toContain('<tr class="empty"><td colspan="8">No runs yet.</td></tr>');
    expect(html).toContain('<tr class="empty"><td colspan="3">None.</td></tr>');
  });

  it('serves the JSON with a QR data URL while linking, and none once linked', async () => {
    const { base, wa } = await start();
    const auth = { authorization: `Bearer ${TOKEN}` };
    wa.emitQr('2@first-qr-code');
    const a = (await (await fetch(`${base}/api/status`, { headers: auth })).json()) as {
      qr: string | null;
      snapshot: { channels: { name: string; state: string; qrAvailable?: boolean }[] };
    };
    expect(a.qr).toMatch(/^data:image\/png;base64,/);
    expect(a.snapshot.channels[0]).toMatchObject({
      name: 'whatsapp',
      state: 'connecting',
      qrAvailable: true,
    });
    wa.emitQr('2@second-qr-code');
    const b = (await (await fetch(`${base}/api/status`, { headers: auth })).json()) as { qr: string };
    expect(b.qr).toMatch(/^data:image\/png;base64,/);
    expect(b.qr).not.toBe(a.qr);
    wa.open('15551234567@s.whatsapp.net');
    const c = (await (await fetch(`${base}/api/status`, { headers: auth })).json()) as {
      qr: string | null;
      snapshot: { channels: { account?: string }[] };
    };
    expect(c.qr).toBeNull();
    expect(c.snapshot.channels[0]?.account).toBe('…4567@s.whatsapp.net');
  });

  it('answers /healthz without the token: 503 down while nothing is connected, 200 ok once linked', async () => {
    const { base, wa } = await start();
    wa.emitQr('2@qr');
    const down = await fetch(`${base}/healthz`);
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({
      status: 'down',
      channels: { whatsapp: 'connecting', twilio: 'disabled' },
    });
    wa.open('15551234567@s.whatsapp.net');
    const up = await fetch(`${base}/healthz`);
    expect(up.status).toBe(200);
    const body = await up.text();
    expect(JSON.parse(body)).toEqual({
      status: 'ok',
      channels: { whatsapp: 'connected', twilio: 'disabled' },
    });
    expect(body).not.toContain('4567');
  });

  it('/healthz and the console show a WhatsApp link that fails its liveness checks as degraded, with the last check', async () => {
    const { base, wa } = await start();
    const at = Date.UTC(2026, 0, 5, 9, 30);
    wa.state = {
      type: 'degraded',
      since: at - 60_000,
      lastError:
        'WhatsApp looks connected but failed 2 liveness checks in a row (last: no answer within 30 s); reconnecting',
      retries: 2,
      probe: { ok: false, at, detail: 'no answer within 30 s' },
    };
    const r = await fetch(`${base}/healthz`);
    expect(r.status).toBe(503); // the only channel is not connected: down, as for any outage
    expect(await r.json()).toEqual({
      status: 'down',
      channels: { whatsapp: 'degraded', twilio: 'disabled' },
      checks: { whatsapp: { ok: false, at: '2026-01-05T09:30:00.000Z' } }, // no error text without the token
    });
    const page = await (await fetch(`${base}/`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    expect(page).toContain('failed 2 liveness checks');
    expect(page).toContain('last check 2026-01-05 09:30:00: failed (no answer within 30 s)');
  });

  it('relinks from the console: a button while a relink is required, a POST that needs the token and the header', async () => {
    let calls = 0;
    const wa = new FakeWhatsapp();
    wa.state = {
      type: 'relink_required',
      since: Date.now(),
      reason: 'WhatsApp logged this device out (401).',
    };
    const { base } = await start(wa, undefined, async () => {
      calls++;
      wa.emitQr('2@fresh');
      return { type: 'linking' };
    });
    const auth = { authorization: `Bearer ${TOKEN}` };
    const page = await (await fetch(`${base}/`, { headers: auth })).text();
    expect(page).toContain('<button id="relink">Link again: show a new QR code</button>');
    const url = `${base}/api/whatsapp/link`;
    expect((await fetch(url, { method: 'POST', headers: { 'x-agentwire-action': 'link' } })).status).toBe(
      401,
    );
    expect((await fetch(url, { method: 'POST', headers: auth })).status).toBe(403); // no header: a form could do this
    expect(calls).toBe(0);
    const r = await fetch(url, { method: 'POST', headers: { ...auth, 'x-agentwire-action': 'link' } });
    expect(await r.json()).toEqual({ type: 'linking' });
    expect(calls).toBe(1);
    const st = (await (await fetch(`${base}/api/status`, { headers: auth })).json()) as { qr: string | null };
    expect(st.qr).toMatch(/^data:image\/png;base64,/);
  });

  it('escapes error text from a channel in the server-rendered page', async () => {
    const status = () =>
      buildSnapshot({
        now: Date.now(),
        source: 'relay',
        relay: { running: true, pid: 1 },
        channels: [
          {
            name: 'whatsapp',
            state: { type: 'degraded', since: 0, retries: 3, lastError: '<img src=x onerror=alert(1)>' },
          },
        ],
      });
    const { base } = await start(new FakeWhatsapp(), status);
    const html = await (await fetch(`${base}/`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).not.toContain('<img src=x');
  });

  it('reports a busy port as a clear error', async () => {
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const port = (srv.address() as { port: number }).port;
    await expect(
      startWebConsole({ host: '127.0.0.1', port, token: TOKEN, status: fakeStatus(new FakeWhatsapp()) }),
    ).rejects.toThrow(`cannot listen on 127.0.0.1:${port}: EADDRINUSE`);
    srv.close();
  });
});
