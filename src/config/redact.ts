import type { EnvReference } from './load.js';
import { type Config, SECRET_PATHS } from './schema.js';

const MASK = '[redacted]';

/**
 * A copy of the config safe to print: secret values and every env value replaced, and every other
 * string that was built from `${VAR}` references shown as written (`--key=${API_KEY}`), so a secret
 * passed through the environment never appears, whichever key it was put in.
 */
export function redactConfig(config: Config, envRefs: readonly EnvReference[] = []): unknown {
  const copy = structuredClone(config) as Config;
  for (const ref of envRefs) setString(copy, ref.path, ref.template);
  // The secret keys are listed once, beside the sections (schema.ts): this file names no section.
  for (const path of SECRET_PATHS) maskAt(copy, path.split('.'));
  return copy;
}

/**
 * Masks what `path` (`*` for every key) leads to: a non-empty string becomes the mask, and a map
 * (an env section) keeps its names with every value masked.
 */
function maskAt(node: unknown, path: readonly string[]): void {
  if (!node || typeof node !== 'object') return;
  const parent = node as Record<string, unknown>;
  const [key, ...rest] = path;
  if (key === undefined) return;
  for (const k of key === '*' ? Object.keys(parent) : [key]) {
    if (rest.length > 0) maskAt(parent[k], rest);
    else if (typeof parent[k] === 'string' && parent[k] !== '') parent[k] = MASK;
    else if (parent[k] && typeof parent[k] === 'object')
      parent[k] = Object.fromEntries(Object.keys(parent[k]).map((name) => [name, MASK]));
  }
}

/** Replaces the string at `path`, if the resolved config still has a string there. */
function setString(root: unknown, path: readonly (string | number)[], value: string): void {
  let node: unknown = root;
  for (const key of path.slice(0, -1)) {
    if (!node || typeof node !== 'object') return;
    node = (node as Record<string | number, unknown>)[key];
  }
  const last = path[path.length - 1];
  if (last === undefined || !node || typeof node !== 'object') return;
  const parent = node as Record<string | number, unknown>;
  if (typeof parent[last] === 'string') parent[last] = value;
}
