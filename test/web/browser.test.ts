// The console in a real headless Chromium (driven by playwright-core), served
// by a real relay (store, queue, control socket, console service) whose WhatsApp channel talks to a
// fake Baileys socket, the far edge. The page loads with the token, shows the QR image and follows
// its rotation, switches to "linked", refuses without the token, and its screenshot is not blank.
// Runs only through `npm run test:browser` (vitest.browser.config.ts), never in `npm test`, which must
// pass on a machine with only Node. The browser comes from find-browser.ts (AGENTWIRE_CHROMIUM, or
// the usual places). No Chromium is a failure, not a skip: whoever runs this route asked for the
// browser test, and .ci/run installs one first.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/store/sqlite/db.js';
import { sqliteFile } from '../../src/store/sqlite/open.js';
import { recordRun, runsMigration } from '../../src/store/sqlite/runs.js';
import { findBrowserHere, HOW_TO_GET_ONE } from './find-browser.js';
import { darkShare, decodePng, distinctColours } from './png.js';
import { startTestRelay, type TestRelay } from './relay-harness.js';

let profile: string;
let browser: BrowserContext;
let page: Page;
let r: TestRelay;

beforeAll(async () => {
  const found = findBrowserHere();
  if (found.type === 'missing') throw new Error(`${found.reason}: ${HOW_TO_GET_ONE}`);
  process.stderr.write(`test:browser: ${found.path} (from ${found.via})\n`);
  profile = mkdtempSync(join(tmpdir(), 'aw-chromium-'));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: found.path,
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
  r = await startTestRelay();
  // Two finished runs in the history, as the queue records them.
  const db = openDb(sqliteFile(r.ctx.paths.home), [runsMigration]);
  const t0 = Date.now() - 60_000;
  recordRun(db, {
    chat: 'whatsapp:+15551234567',
    agent: 'claude',
    label: 'user',
    startedAt: t0,
    durationMs: 4200,
    outcome: 'ok',
  });
  recordRun(db, {
    chat: 'twilio:+15557654321',
    agent: 'codex',
    label: 'user',
    startedAt: t0 + 1,
    durationMs: 600_000,
    outcome: 'timeout',
  });
  recordRun(db, {
    chat: 'whatsapp:+15551234567',
    agent: 'claude',
    label: 'schedule:morning',
    startedAt: t0 + 2,
    durationMs: 1500,
    outcome: 'ok',
  });
  db.close();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await r?.stop();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

describe('web console in Chromium', () => {
  it('refuses without the token and shows no data', async () => {
    const base = new URL(r.consoleUrl()).origin;
    const res = await page.goto(`${base}/`);
    expect(res?.status()).toBe(401);
    const text = (await page.locator('body').textContent()) ?? '';
    expect(text).toContain('needs its token');
    expect(text).not.toMatch(/4567|whatsapp|Health/);
    expect(await page.locator('#qr').count()).toBe(0);
  });

  it('loads with the token, shows the QR code, follows a new one, then shows linked', async () => {
    r.sock().emit('connection.update', { qr: '2@first-code-from-the-fake-socket,AAAA,BBBB' });
    const url = r.consoleUrl();
    const res = await page.goto(url);
    expect(res?.status()).toBe(200);
    // The token was traded for a cookie: the address bar no longer shows it.
    expect(page.url()).toBe(`${new URL(url).origin}/`);
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

    r.sock().emit('connection.update', { qr: '2@second-code-after-rotation,CCCC,DDDD' });
    await expect.poll(() => qr.getAttribute('src'), { timeout: 10_000 }).not.toBe(first);
    expect(await qr.getAttribute('src')).toMatch(/^data:image\/png;base64,/);

    const full = decodePng(await page.screenshot({ fullPage: true }));
    expect(full.width).toBeGreaterThan(300);
    expect(distinctColours(full)).toBeGreaterThan(20);

    r.sock().open();
    await page.locator('#linked').waitFor({ state: 'visible', timeout: 10_000 });
    expect(await page.locator('#linked').textContent()).toBe('WhatsApp linked as …1111');
    expect(await page.locator('#qr').count()).toBe(0);
    await expect.poll(() => page.locator('#health').textContent()).toContain('Health: ok');
    expect(await page.locator('#channels tr[data-channel="whatsapp"]').textContent()).toContain('connected');
    const runs = (await page.locator('#runs tbody').textContent()) ?? '';
    expect(runs).toContain('whatsapp:…4567');
    expect(runs).toContain('600.0s');
    expect(runs).toContain('timeout');
    expect(runs).not.toContain('+1555');
    // What started each run is named; the redrawn tables say when they are empty.
    const cells = await page
      .locator('#runs tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    expect(cells.map((c) => c[2])).toEqual(['schedule morning', 'message', 'message']);
    expect(await page.locator('#runs thead').textContent()).toContain('time (UTC)');
    expect(await page.locator('#failures tbody').textContent()).toBe('None.');
  });
});
