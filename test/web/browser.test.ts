// The console in a real headless Chromium (Debian's `chromium`, driven by playwright-core): the
// page loads with the token, shows the QR image and follows its rotation, switches to "linked",
// refuses without the token, and its screenshot is not blank. The WhatsApp side is the real channel
// over a fake Baileys socket (the far edge) and real SQLite. No Chromium is a failure, not a skip:
// .ci/run installs it.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSnapshot } from '../../src/ops/status/snapshot.js';
import { qrOf } from '../../src/web/qr.js';
import { startWebConsole, type WebConsole } from '../../src/web/server.js';
import { setup as whatsappSetup } from '../channels/whatsapp/harness.js';
import { darkShare, decodePng, distinctColours } from './png.js';

const CHROMIUM = '/usr/bin/chromium';
const TOKEN = 'browser-test-token-0123456789';
let profile: string;
let browser: BrowserContext;
let page: Page;
let web: WebConsole;
let wa: Awaited<ReturnType<typeof whatsappSetup>>;

beforeAll(async () => {
  expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y chromium`).toBe(true);
  profile = mkdtempSync(join(tmpdir(), 'aw-chromium-'));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 900, height: 1000 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  page = browser.pages()[0] ?? (await browser.newPage());
  wa = await whatsappSetup({ linked: false });
  await wa.channel.start(async () => ({ type: 'stored', inboxId: 1 }));
  const t0 = Date.now() - 60_000;
  web = await startWebConsole({
    host: '127.0.0.1',
    port: 0,
    token: TOKEN,
    status: () =>
      buildSnapshot({
        now: Date.now(),
        source: 'relay',
        relay: { running: true, pid: 4242, startedAt: t0 },
        channels: [
          { name: 'whatsapp', state: wa.channel.status() },
          { name: 'twilio', state: { type: 'disabled' } },
        ],
        runs: [
          { at: t0, chat: 'whatsapp:+15551234567', agent: 'claude', durationMs: 4200, outcome: 'ok' },
          {
            at: t0 - 5000,
            chat: 'twilio:+15557654321',
            agent: 'codex',
            durationMs: 600_000,
            outcome: 'timeout',
          },
        ],
      }),
    whatsappQr: () => qrOf(wa.channel.status()),
    pollMs: 300,
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await web?.close();
  await wa?.channel.stop();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

describe('web console in Chromium', () => {
  it('refuses without the token and shows no data', async () => {
    const r = await page.goto(`http://127.0.0.1:${web.port}/`);
    expect(r?.status()).toBe(401);
    const text = await page.locator('body').textContent();
    expect(text).toContain('needs its token');
    expect(text).not.toContain('4567');
    expect(await page.locator('#qr').count()).toBe(0);
  });

  it('loads with the token, shows the QR code, follows a new one, then shows linked', async () => {
    wa.sock().emit('connection.update', { qr: '2@first-code-from-the-fake-socket,AAAA,BBBB' });
    const r = await page.goto(web.url);
    expect(r?.status()).toBe(200);
    // The token was traded for a cookie: the address bar no longer shows it.
    expect(page.url()).toBe(`http://127.0.0.1:${web.port}/`);
    await expect.poll(() => page.locator('#health').textContent()).toContain('Health: down');

    const qr = page.locator('#qr');
    await qr.waitFor({ state: 'visible' });
    const first = await qr.getAttribute('src');
    expect(first).toMatch(/^data:image\/png;base64,/);
    // The image really rendered: a QR code is a fair mix of dark and light modules.
    const shot = decodePng(await qr.screenshot());
    expect(shot.width).toBeGreaterThan(100);
    expect(darkShare(shot)).toBeGreaterThan(0.2);
    expect(darkShare(shot)).toBeLessThan(0.8);

    wa.sock().emit('connection.update', { qr: '2@second-code-after-rotation,CCCC,DDDD' });
    await expect.poll(() => qr.getAttribute('src'), { timeout: 10_000 }).not.toBe(first);
    expect(await qr.getAttribute('src')).toMatch(/^data:image\/png;base64,/);

    const full = decodePng(await page.screenshot({ fullPage: true }));
    expect(full.width).toBeGreaterThan(300);
    expect(distinctColours(full)).toBeGreaterThan(20);

    wa.sock().open();
    await page.locator('#linked').waitFor({ state: 'visible', timeout: 10_000 });
    expect(await page.locator('#linked').textContent()).toBe('WhatsApp linked as …1111');
    expect(await page.locator('#qr').count()).toBe(0);
    await expect.poll(() => page.locator('#health').textContent()).toContain('Health: ok');
    expect(await page.locator('#channels tr[data-channel="whatsapp"]').textContent()).toContain('connected');
    const runs = await page.locator('#runs tbody').textContent();
    expect(runs).toContain('whatsapp:…4567');
    expect(runs).toContain('timeout');
    expect(runs).not.toContain('+1555');
  });
});
