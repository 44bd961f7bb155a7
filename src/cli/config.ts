import type { Command } from 'commander';
import { AGENT_KINDS } from '../agents/registry.js';
import { enabledChannels } from '../channels/registry.js';
import { formatProblem, loadConfig } from '../config/load.js';
import { resolvePaths } from '../config/paths.js';
import { redactConfig } from '../config/redact.js';
import { configWarnings } from '../config/warnings.js';
import { configProblems } from '../heartbeat/target.js';
import { registerSecretEnv, scrub } from '../log.js';
import { ExitError, type GlobalOptions } from './context.js';

export function register(program: Command): void {
  const cmd = program.command('config').description('check or print the configuration');
  cmd
    .command('check [file]')
    .description('validate a config file; exit 1 listing every problem as FILE:LINE:COL key: message')
    .action(async (file: string | undefined) => {
      const global = program.opts<GlobalOptions>();
      const paths = resolvePaths(process.env, file ?? global.config);
      const loaded = loadConfig(
        paths.configFile,
        paths.configExplicit,
        process.env,
        AGENT_KINDS,
        configProblems,
      );
      if (!loaded.ok) throw new ExitError(1, loaded.problems.map(formatProblem).join('\n'));
      const c = loaded.config;
      const channels =
        enabledChannels(c)
          .map((p) => p.name)
          .join(', ') || 'none';
      const head =
        loaded.file === undefined
          ? `No config file found at ${paths.configFile}; the defaults are in use.`
          : `${loaded.file}: ok`;
      const warnings = configWarnings(c).map((w) => `warning: ${w.path} ${w.message}\n`);
      const named =
        c.agents.list.length > 0 ? `, named agents: ${c.agents.list.map((a) => a.name).join(', ')}` : '';
      // Which database a PostgreSQL store opens, never with its password, and where its URL came from.
      let store = '';
      if (c.store.engine === 'postgres' && c.store.url) {
        // The engine's own words for where it is (store/open.ts): nothing is opened to say it.
        const { storeAdmin, storeConfigFor } = await import('../store/open.js');
        store = `  store: postgres at ${(await storeAdmin(storeConfigFor(paths, c.store))).where}\n`;
      }
      process.stdout.write(
        `${head}\n  agent: ${c.agent.kind}${named}, channels: ${channels}, schedules: ${c.schedules.length}\n${store}${warnings.join('')}`,
      );
    });
  cmd
    .command('print')
    .description('print the resolved config (defaults filled in, secrets redacted)')
    .action(() => {
      const global = program.opts<GlobalOptions>();
      const paths = resolvePaths(process.env, global.config);
      const loaded = loadConfig(
        paths.configFile,
        paths.configExplicit,
        process.env,
        AGENT_KINDS,
        configProblems,
      );
      if (!loaded.ok) throw new ExitError(1, loaded.problems.map(formatProblem).join('\n'));
      // Last line of defence: secret-looking environment values and key shapes typed in by hand.
      registerSecretEnv(process.env);
      const printed = JSON.stringify(redactConfig(loaded.config, loaded.envRefs), null, 2);
      process.stdout.write(`${scrub(printed)}\n`);
    });
}
