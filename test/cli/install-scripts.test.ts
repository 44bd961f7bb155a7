// Every dependency that ships an install script has a decision recorded in package.json's
// `allowScripts` (npm 11.16+ warns about the ones without; npm 12 skips them): a new dependency with
// one fails here until someone has read its script and run `npm install-scripts approve|deny <pkg>`.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../..', import.meta.url).pathname;
const json = (file: string): Record<string, unknown> => JSON.parse(readFileSync(root + file, 'utf8'));

/** The package's name in an `allowScripts` key: name-only, or pinned as `name@version`. */
function allowKeyName(key: string): string {
  const at = key.indexOf('@', 1);
  return at === -1 ? key : key.slice(0, at);
}

/** Names of the locked packages with an install script (lockfile v3 `hasInstallScript`). */
function withInstallScripts(): string[] {
  const packages = json('package-lock.json').packages as Record<string, { hasInstallScript?: boolean }>;
  return Object.entries(packages)
    .filter(([path, p]) => path !== '' && p.hasInstallScript === true)
    .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
}

describe("dependencies' install scripts", () => {
  it.each([
    ['protobufjs', 'protobufjs'],
    ['protobufjs@7.6.6', 'protobufjs'],
    ['@whiskeysockets/baileys', '@whiskeysockets/baileys'],
    ['@whiskeysockets/baileys@7.0.0-rc14', '@whiskeysockets/baileys'],
  ])('the allowScripts key %s names %s', (key, name) => {
    expect(allowKeyName(key)).toBe(name);
  });

  it('each one is approved or denied in package.json, and nothing else is listed', () => {
    const allow = (json('package.json').allowScripts ?? {}) as Record<string, boolean>;
    const decided = new Set(Object.keys(allow).map(allowKeyName));
    const needed = new Set(withInstallScripts());
    // The lock read right: it has two today (Baileys' Node check, protobufjs's version notice).
    expect(needed.size).toBeGreaterThan(0);
    expect([...needed].filter((n) => !decided.has(n))).toEqual([]);
    expect([...decided].filter((n) => !needed.has(n))).toEqual([]);
  });
});
