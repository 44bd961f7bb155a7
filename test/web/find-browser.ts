// Where the browser test finds a Chromium: a setting first, then the usual places. A setting that
// names a missing file is an error, not a reason to look elsewhere: the run would silently test a
// different browser than the one asked for.
import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';

export type BrowserSearch = {
  env: Readonly<Record<string, string | undefined>>;
  home: string;
  platform: NodeJS.Platform;
  exists: (path: string) => boolean;
  /** Entries of a folder, or [] when it cannot be read. */
  list: (dir: string) => string[];
};

export type BrowserFound = { type: 'found'; path: string; via: string } | { type: 'missing'; reason: string };

/** The settings, in order: ours, then the name Puppeteer-style tools and CI images use. */
export const BROWSER_SETTINGS = ['AGENTWIRE_CHROMIUM', 'CHROME_PATH'] as const;
const ON_PATH = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'chrome'];
// Playwright's cache: full Chromium builds and the smaller headless shell, per layout it has used.
const PLAYWRIGHT = [
  [
    'chromium-',
    ['chrome-linux/chrome', 'chrome-linux64/chrome', 'chrome-mac/Chromium.app/Contents/MacOS/Chromium'],
  ],
  [
    'chromium_headless_shell-',
    ['chrome-linux/headless_shell', 'chrome-headless-shell-linux64/chrome-headless-shell'],
  ],
] as const;
const MAC_APPS = [
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
];

export const HOW_TO_GET_ONE =
  'set AGENTWIRE_CHROMIUM to a Chromium or Chrome binary, or install one (apt-get install -y chromium, or npx playwright-core install chromium)';

export function findBrowser(s: BrowserSearch): BrowserFound {
  for (const name of BROWSER_SETTINGS) {
    const value = s.env[name];
    if (!value) continue;
    if (s.exists(value)) return { type: 'found', path: value, via: name };
    return { type: 'missing', reason: `${name}=${value}, but there is no such file` };
  }
  const dirs = (s.env.PATH ?? '').split(delimiter).filter(Boolean);
  for (const name of ON_PATH)
    for (const dir of dirs) {
      const path = join(dir, name);
      if (s.exists(path)) return { type: 'found', path, via: 'PATH' };
    }
  const cache = s.env.PLAYWRIGHT_BROWSERS_PATH || join(s.home, '.cache', 'ms-playwright');
  for (const [prefix, bins] of PLAYWRIGHT) {
    // Newest build first: the folder names end in a revision number.
    const builds = s
      .list(cache)
      .filter((d) => d.startsWith(prefix) && /^\d+$/.test(d.slice(prefix.length)))
      .sort((a, b) => Number(b.slice(prefix.length)) - Number(a.slice(prefix.length)));
    for (const build of builds)
      for (const bin of bins) {
        const path = join(cache, build, bin);
        if (s.exists(path)) return { type: 'found', path, via: 'the Playwright cache' };
      }
  }
  if (s.platform === 'darwin')
    for (const path of MAC_APPS) if (s.exists(path)) return { type: 'found', path, via: '/Applications' };
  return {
    type: 'missing',
    reason: `no Chromium found (looked at ${BROWSER_SETTINGS.join(', ')}, ${ON_PATH.join('/')} on PATH, ${cache})`,
  };
}

/** findBrowser on this machine. */
export function findBrowserHere(): BrowserFound {
  return findBrowser({
    env: process.env,
    home: homedir(),
    platform: process.platform,
    exists: existsSync,
    list: (dir) => {
      try {
        return readdirSync(dir);
      } catch {
        return [];
      }
    },
  });
}
