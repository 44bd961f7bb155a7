// How the relay logs: every line at the configured level into the rotated file in the state folder;
// on stderr the same when a person watches a terminal, only warnings and worse under a service
// manager (journald / launchd keep stderr too, and the file is the place to read the rest). A
// terminal gets the lines as `agentwire logs` prints them; a service manager keeps the JSON.
import type { Paths } from '../../config/paths.js';
import type { Config } from '../../config/schema.js';
import type { LoggerSetup } from '../../log.js';
import { formatLogLine } from './format.js';

export function relayLogSetup(
  paths: Paths,
  config: Config,
  env: NodeJS.ProcessEnv,
  stderrIsTTY: boolean,
): LoggerSetup {
  const level = env.AGENTWIRE_LOG_LEVEL ?? config.log.level;
  return {
    level,
    file: {
      dir: paths.logs,
      maxBytes: Math.round(config.log.maxFileMb * 1024 * 1024),
      keep: config.log.keepFiles,
    },
    stderrLevel: stderrIsTTY || ['error', 'fatal'].includes(level) ? level : 'warn',
    ...(stderrIsTTY ? { stderrFormat: formatLogLine } : {}),
  };
}
