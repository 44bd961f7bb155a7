// The running agentwire's version, read once from its own package.json, one level above the root of
// src/ or dist/ (own-files.ts finds that root from a module or from a chunk of the bundle), so the
// built bin and the tests that import the sources read the same file; package.json is always part
// of a published package.
import { readFileSync } from 'node:fs';
import { ownFile } from './own-files.js';

export const VERSION: string = (
  JSON.parse(readFileSync(ownFile('../package.json'), 'utf8')) as { version: string }
).version;
