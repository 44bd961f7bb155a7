// `agentwire service install [--user]` / `service uninstall`: a systemd user unit (Linux) or a
// launchd agent (macOS) that runs `agentwire relay` and restarts it after a failure.
import { spawnSync } from 'node:child_process';
import { homedir } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { resolvePaths } from '../config/paths.js';
import { installService, uninstallService } from '../ops/service/install.js';
import { serviceEnv } from '../ops/service/spec.js';
import { ownFile } from '../own-files.js';
import { ExitError, type GlobalOptions, loadContext } from './context.js';

export function register(program: Command): void {
  const cmd = program
    .command('service')
    .description('run the relay as a background service (systemd / launchd)');
  cmd
    .command('install')
    .description('write a user service that runs `agentwire relay` and restarts it on failure')
    .option('--user', 'a per-user service (the default and the only kind written)', true)
    .action(() => {
      const global = program.opts<GlobalOptions>();
      // Validate the config now: a unit that crash-loops on a bad config helps nobody.
      const ctx = loadContext(global);
      const home = homedir();
      const result = installService(
        {
          nodePath: process.execPath,
          mainPath: fileURLToPath(ownFile('cli/bin.js')),
          env: serviceEnv(process.env, global.config ? ctx.paths.configFile : undefined),
          stopTimeoutSeconds: ctx.config.queue.shutdownGraceSeconds + 20,
          logDir: ctx.paths.logs,
        },
        process.platform,
        home,
      );
      if (!result.ok) throw new ExitError(1, result.error);
      process.stdout.write(
        `${result.changed ? 'wrote' : 'unchanged'} ${result.file}\n\nTo enable and start it:\n${result.commands
          .map((c) => `  ${c}`)
          .join('\n')}\n`,
      );
    });
  cmd
    .command('uninstall')
    .description('stop the service and remove its unit file')
    .action(() => {
      const result = uninstallService(process.platform, homedir(), runQuiet, process.getuid?.() ?? 0);
      if (!result.ok) throw new ExitError(1, result.error);
      if (!result.removed) {
        process.stdout.write(`no service installed (${result.file} does not exist)\n`);
        return;
      }
      for (const r of result.ran)
        process.stdout.write(
          `${r.ok ? 'ran' : 'could not run'}: ${r.command}${r.ok ? '' : ` (${r.output})`}\n`,
        );
      process.stdout.write(`removed ${result.file}\n`);
      const home = resolvePaths(process.env, program.opts<GlobalOptions>().config).home;
      process.stdout.write(`the state folder ${home} was left as it is\n`);
    });
}

function runQuiet(argv: string[]): { ok: boolean; output: string } {
  const [bin, ...args] = argv as [string, ...string[]];
  const r = spawnSync(bin, args, { encoding: 'utf8', timeout: 15_000 });
  if (r.error) return { ok: false, output: r.error.message };
  return { ok: r.status === 0, output: `${r.stdout}${r.stderr}`.trim().split('\n')[0] ?? '' };
}
