// The running agentwire's version, read once from its own package.json. `src/` and `dist/` both sit
// one level below the package root, so the same relative URL works for the built bin and for tests
// that import the sources; package.json is always part of a published package.
import { readFileSync } from 'node:fs';

export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
