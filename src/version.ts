// The running agentwire's version, read once from its own package.json. `src/` and `dist/` both sit
// one level below the package root, so the same relative URL works for the built bin and for tests
// that import the sources; package.json is always part of a published package.
import { readFileSync } from 'node:fs';
import { ownFile } from './own-files.js';

export const VERSION: string = (
  JSON.parse(readFileSync(ownFile('../package.json'), 'utf8')) as { version: string }
).version;
