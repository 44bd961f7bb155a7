// `agentwire doctor`: checks the setup and explains each problem with its fix. Exit 0 only when
// every finding is ok. It reads the config only to decide what to check and never prints a value
// from it that could be a secret.
import type { Command } from 'commander';
import { resolvePaths } from '../config/paths.js';
import { registerSecretEnv } from '../log.js';
import { linkStateFromStore } from '../ops/doctor/link-state.js';
import { readLock } from '../ops/doctor/lock-file.js';
import { probeCommand } from '../ops/doctor/probe.js';
import { renderFindings } from '../ops/doctor/render.js';
import { runDoctor } from '../ops/doctor/run.js';
import { allWell } from '../ops/doctor/types.js';
import { liveWhatsappFromRelay } from '../ops/doctor/whatsapp-live.js';
import { storeAdmin, storeConfigFor } from '../store/open.js';
import { ExitError, type GlobalOptions } from './context.js';

export function register(program: Command): void {
  program
    .command('doctor')
    .description('check Node, the config, permissions, agent CLIs, channels and the relay; explain each fix')
    .option('--json', 'print the findings as JSON: {ok, findings: [{check, status, message, fix?}]}')
    .option('--timeout <seconds>', 'how long each agent CLI may take to answer --version', '10')
    .action(async (opts: { json?: boolean; timeout: string }) => {
      const global = program.opts<GlobalOptions>();
      // Not loadContext: an invalid config is a finding here, not the end of the command.
      const paths = resolvePaths(process.env, global.config);
      registerSecretEnv(process.env);
      const findings = await runDoctor({
        paths,
        env: process.env,
        nodeVersion: process.version,
        platform: process.platform,
        uid: process.getuid?.(),
        probe: probeCommand,
        probeTimeoutMs: Math.max(1, Number(opts.timeout) || 10) * 1000,
        readLock,
        store: (config) => storeAdmin(storeConfigFor(paths, config?.store)),
        linkState: linkStateFromStore,
        liveWhatsapp: liveWhatsappFromRelay,
      });
      const well = allWell(findings);
      process.stdout.write(
        opts.json ? `${JSON.stringify({ ok: well, findings }, null, 2)}\n` : renderFindings(findings),
      );
      if (!well) throw new ExitError(1);
    });
}
