// Node 22.13 is the first release with node:sqlite usable without a flag; the store needs it.
import { type Finding, fail, ok } from './types.js';

export const MIN_NODE = [22, 13, 0] as const;

export function checkNode(version: string): Finding {
  const parts = version.replace(/^v/, '').split('.').map(Number);
  const [a = 0, b = 0, c = 0] = parts;
  const min = MIN_NODE.join('.');
  const new_enough =
    a !== MIN_NODE[0] ? a > MIN_NODE[0] : b !== MIN_NODE[1] ? b > MIN_NODE[1] : c >= MIN_NODE[2];
  if (parts.some(Number.isNaN) || !new_enough)
    return fail(
      'node',
      `Node ${version} is too old: agentwire needs ${min} or newer (for node:sqlite)`,
      'install Node 24 LTS (https://nodejs.org, or `nvm install 24`), then reinstall agentwire with it',
    );
  return ok('node', `Node ${version} (${min} or newer needed)`);
}
