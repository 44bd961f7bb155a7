// Start-up shared by every command: paths from the environment, the config validated once, a logger.
import { AGENT_KINDS } from '../agents/registry.js';
import { channelRedactPaths, channelSecrets } from '../channels/registry.js';
import { formatProblem, loadConfig } from '../config/load.js';
import { type Paths, resolvePaths, withSharedFolder } from '../config/paths.js';
import { agentOverrides, type Config } from '../config/schema.js';
import { storeSecrets } from '../config/schema-store.js';
import { configProblems } from '../heartbeat/target.js';
import {
  createLogger,
  type Logger,
  registerCredential,
  registerRedactPaths,
  registerSecret,
  registerSecretEnv,
} from '../log.js';
import { formatLogLine } from '../ops/logs/format.js';
import { type LogMode, relayLogSetup } from '../ops/logs/setup.js';

export interface Context {
  paths: Paths;
  config: Config;
  log: Logger;
  env: NodeJS.ProcessEnv;
}

export interface GlobalOptions {
  config?: string;
}

/** Thrown to end a command with an exit code after a message was printed. */
export class ExitError extends Error {
  constructor(
    readonly code: number,
    message = '',
  ) {
    super(message);
  }
}

export interface ContextOptions {
  /**
   * Also log JSON lines to the rotated file in <state>/logs (0600), so `agentwire logs` shows them:
   * what stderr shows besides depends on the mode (see ops/logs/setup.ts).
   */
  logFile?: LogMode;
}

export function loadContext(
  opts: GlobalOptions,
  env: NodeJS.ProcessEnv = process.env,
  options: ContextOptions = {},
): Context {
  const paths = resolvePaths(env, opts.config);
  const loaded = loadConfig(paths.configFile, paths.configExplicit, env, AGENT_KINDS, configProblems);
  if (!loaded.ok) {
    throw new ExitError(
      1,
      ['Invalid config:', ...loaded.problems.map((p) => `  ${formatProblem(p)}`)].join('\n'),
    );
  }
  const config = loaded.config;
  for (const s of [...channelSecrets(config, env), ...storeSecrets(config.store)]) registerCredential(s);
  // Before createLogger: pino compiles its redaction paths when the logger is made.
  registerRedactPaths(channelRedactPaths());
  // Every agent env value is kept out of the log; those named like keys are kept out of replies too.
  for (const e of [config.agent.env, ...agentOverrides(config.agents).map((a) => a?.env ?? {})]) {
    for (const v of Object.values(e)) registerSecret(v);
    registerSecretEnv(e);
  }
  registerSecretEnv(env);
  const tty = Boolean(process.stderr.isTTY);
  const log = createLogger(
    options.logFile
      ? relayLogSetup(paths, config, env, tty, options.logFile)
      : // A person at a terminal reads lines as `agentwire logs` prints them, never raw JSON.
        {
          level: env.AGENTWIRE_LOG_LEVEL ?? config.log.level,
          ...(tty ? { stderrFormat: formatLogLine } : {}),
        },
  );
  return { paths: withSharedFolder(paths, config.store.sharedFolder), config, log, env };
}
