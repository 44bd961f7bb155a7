// How the relay logs, and `chat` and `heartbeat`, whose runs belong in `agentwire logs` too: every
// line at the configured level into the rotated file in the state folder. On stderr, per `mode`:
// - relay: the same when a person watches a terminal, only warnings and worse under a service
//   manager (journald / launchd keep stderr too, and the file is the place to read the rest);
// - command (heartbeat): the same, terminal or script;
// - conversation (chat): the terminal is the conversation, so info lines stay in the file unless
//   a level was asked for with AGENTWIRE_LOG_LEVEL.
// A terminal gets the lines as `agentwire logs` prints them; anything else keeps the JSON.
//
// Two processes may append to the file at once (a relay and a `chat`): each line is one O_APPEND
// write, so lines do not interleave; a rotation by one leaves the other writing to the renamed file
// until it rotates too, so a line can land in agentwire.log.1, never nowhere.
import type { Paths } from '../../config/paths.js';
import type { Config } from '../../config/schema.js';
import type { LoggerSetup } from '../../log.js';
import { formatLogLine } from './format.js';

export function relayLogSetup(
  paths: Paths,
  config: Config,
  env: NodeJS.ProcessEnv,
  stderrIsTTY: boolean,
  mode: LogMode = 'relay',
): LoggerSetup {
  const level = env.AGENTWIRE_LOG_LEVEL ?? config.log.level;
  return {
    level,
    file: {
      dir: paths.logs,
      maxBytes: Math.round(config.log.maxFileMb * 1024 * 1024),
      keep: config.log.keepFiles,
    },
    stderrLevel: stderrLevel(mode, level, stderrIsTTY, env.AGENTWIRE_LOG_LEVEL !== undefined),
    ...(stderrIsTTY ? { stderrFormat: formatLogLine } : {}),
  };
}

export type LogMode = 'relay' | 'command' | 'conversation';

function stderrLevel(mode: LogMode, level: string, tty: boolean, asked: boolean): string {
  const loud = ['error', 'fatal'].includes(level);
  switch (mode) {
    case 'relay':
      return tty || loud ? level : 'warn';
    case 'command':
      return level;
    case 'conversation':
      return asked || level !== 'info' ? level : 'warn';
  }
}
