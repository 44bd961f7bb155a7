// Which Chromium the browser test (npm run test:browser) picks, as a table over a fake file system.
import { describe, expect, it } from 'vitest';
import { type BrowserFound, type BrowserSearch, findBrowser } from './find-browser.js';

function search(files: string[], env: Record<string, string> = {}, platform: NodeJS.Platform = 'linux') {
  const set = new Set(files);
  const s: BrowserSearch = {
    env: { PATH: '/usr/local/bin:/usr/bin', ...env },
    home: '/home/u',
    platform,
    exists: (p) => set.has(p),
    // The children of `dir` among the fake files.
    list: (dir) => [
      ...new Set(
        files.filter((f) => f.startsWith(`${dir}/`)).map((f) => f.slice(dir.length + 1).split('/')[0] ?? ''),
      ),
    ],
  };
  return findBrowser(s);
}

const PW = '/home/u/.cache/ms-playwright';
const found = (path: string, via: string): BrowserFound => ({ type: 'found', path, via });

describe('findBrowser', () => {
  it.each<[string, string[], Record<string, string>, NodeJS.Platform, BrowserFound | RegExp]>([
    ['Debian chromium on PATH', ['/usr/bin/chromium'], {}, 'linux', found('/usr/bin/chromium', 'PATH')],
    [
      'Ubuntu chromium-browser',
      ['/usr/bin/chromium-browser'],
      {},
      'linux',
      found('/usr/bin/chromium-browser', 'PATH'),
    ],
    ['Google Chrome', ['/usr/bin/google-chrome'], {}, 'linux', found('/usr/bin/google-chrome', 'PATH')],
    [
      'PATH order decides between folders',
      ['/usr/bin/chromium', '/usr/local/bin/chromium'],
      {},
      'linux',
      found('/usr/local/bin/chromium', 'PATH'),
    ],
    [
      'chromium before google-chrome',
      ['/usr/local/bin/google-chrome', '/usr/bin/chromium'],
      {},
      'linux',
      found('/usr/bin/chromium', 'PATH'),
    ],
    [
      'the setting wins over PATH',
      ['/opt/c/chrome', '/usr/bin/chromium'],
      { AGENTWIRE_CHROMIUM: '/opt/c/chrome' },
      'linux',
      found('/opt/c/chrome', 'AGENTWIRE_CHROMIUM'),
    ],
    [
      'CHROME_PATH when ours is unset',
      ['/opt/c/chrome', '/usr/bin/chromium'],
      { CHROME_PATH: '/opt/c/chrome' },
      'linux',
      found('/opt/c/chrome', 'CHROME_PATH'),
    ],
    [
      'ours before CHROME_PATH',
      ['/a/chrome', '/b/chrome'],
      { AGENTWIRE_CHROMIUM: '/a/chrome', CHROME_PATH: '/b/chrome' },
      'linux',
      found('/a/chrome', 'AGENTWIRE_CHROMIUM'),
    ],
    [
      'a setting naming a missing file is an error, not a fallback',
      ['/usr/bin/chromium'],
      { AGENTWIRE_CHROMIUM: '/nope/chrome' },
      'linux',
      /^AGENTWIRE_CHROMIUM=\/nope\/chrome, but there is no such file$/,
    ],
    [
      'the newest Playwright Chromium',
      [
        `${PW}/chromium-1090/chrome-linux/chrome`,
        `${PW}/chromium-1200/chrome-linux64/chrome`,
        `${PW}/chromium-999/chrome-linux/chrome`,
      ],
      {},
      'linux',
      found(`${PW}/chromium-1200/chrome-linux64/chrome`, 'the Playwright cache'),
    ],
    [
      'Playwright headless shell',
      [`${PW}/chromium_headless_shell-1200/chrome-headless-shell-linux64/chrome-headless-shell`],
      {},
      'linux',
      found(
        `${PW}/chromium_headless_shell-1200/chrome-headless-shell-linux64/chrome-headless-shell`,
        'the Playwright cache',
      ),
    ],
    [
      'PLAYWRIGHT_BROWSERS_PATH',
      ['/pw/chromium-1/chrome-linux/chrome'],
      { PLAYWRIGHT_BROWSERS_PATH: '/pw' },
      'linux',
      found('/pw/chromium-1/chrome-linux/chrome', 'the Playwright cache'),
    ],
    [
      'a half-downloaded Playwright build is passed over',
      [`${PW}/chromium-1200/INSTALLATION_COMPLETE`],
      {},
      'linux',
      /^no Chromium found/,
    ],
    [
      'Chrome.app on macOS',
      ['/Applications/Google Chrome.app/Contents/MacOS/Google Chrome'],
      {},
      'darwin',
      found('/Applications/Google Chrome.app/Contents/MacOS/Google Chrome', '/Applications'),
    ],
    [
      'nothing anywhere',
      [],
      {},
      'linux',
      /^no Chromium found \(looked at AGENTWIRE_CHROMIUM, CHROME_PATH, chromium\/.* on PATH, \/home\/u\/\.cache\/ms-playwright\)$/,
    ],
  ])('%s', (_name, files, env, platform, want) => {
    const got = search(files, env, platform);
    if (want instanceof RegExp) {
      expect(got.type).toBe('missing');
      expect(got.type === 'missing' && got.reason).toMatch(want);
    } else expect(got).toEqual(want);
  });
});
