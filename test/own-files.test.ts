// src/own-files.ts: the program's own root from where its code runs, so that package.json, the bin
// and the launcher's script are found from the sources, from dist/ and from the bundle's chunks.
import { describe, expect, it } from 'vitest';
import { ownFile, ownRoot } from '../src/own-files.js';

describe('ownRoot', () => {
  it.each([
    ['the sources', 'file:///repo/src/', 'file:///repo/src/'],
    ['the build', 'file:///repo/dist/', 'file:///repo/dist/'],
    ["the bundle's chunks", 'file:///repo/dist/bundle/', 'file:///repo/dist/'],
    [
      'an install',
      'file:///usr/lib/node_modules/agentwire/dist/bundle/',
      'file:///usr/lib/node_modules/agentwire/dist/',
    ],
    ['a folder named bundle that is not the build', 'file:///repo/src/bundle/', 'file:///repo/src/bundle/'],
  ])('%s', (_name, here, want) => {
    expect(ownRoot(new URL(here)).href).toBe(want);
  });

  it('finds package.json from the sources', () => {
    expect(ownFile('../package.json').href).toBe(new URL('../package.json', import.meta.url).href);
  });
});
