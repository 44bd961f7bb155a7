// The config is checked by the same loader the relay uses, so doctor and the relay never disagree.
import { existsSync } from 'node:fs';
import { AGENT_KINDS } from '../../agents/registry.js';
import { formatProblem, loadConfig } from '../../config/load.js';
import type { Paths } from '../../config/paths.js';
import type { Config } from '../../config/schema.js';
import { configProblems } from '../../heartbeat/target.js';
import { type Finding, fail, ok } from './types.js';

export function checkConfig(paths: Paths, env: NodeJS.ProcessEnv): { finding: Finding; config?: Config } {
  const loaded = loadConfig(paths.configFile, paths.configExplicit, env, AGENT_KINDS, configProblems);
  if (!loaded.ok) {
    return {
      finding: fail(
        'config',
        `the config is invalid:\n${loaded.problems.map((p) => `  ${formatProblem(p)}`).join('\n')}`,
        `fix the keys named above in ${paths.configFile}; \`agentwire config check\` repeats this list`,
      ),
    };
  }
  const where = existsSync(paths.configFile)
    ? paths.configFile
    : `no file at ${paths.configFile}, so every default applies`;
  return { finding: ok('config', `config valid (${where})`), config: loaded.config };
}
