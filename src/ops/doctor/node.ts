// Doctor's Node check: the same rule the bin applies before loading anything (core/node-version.ts).
import { MIN_NODE, nodeIsNewEnough } from '../../core/node-version.js';
import { type Finding, fail, ok } from './types.js';

export function checkNode(version: string): Finding {
  const min = MIN_NODE.join('.');
  if (!nodeIsNewEnough(version))
    return fail(
      'node',
      `Node ${version} is too old: agentwire needs ${min} or newer (for node:sqlite)`,
      'install Node 24 LTS (https://nodejs.org, or `nvm install 24`), then reinstall agentwire with it',
    );
  return ok('node', `Node ${version} (${min} or newer needed)`);
}
