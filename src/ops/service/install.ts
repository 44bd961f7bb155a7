// Writing and removing the unit file. Install only writes the file and says how to enable it, so
// nothing starts behind the user's back; uninstall first asks the service manager to stop and forget
// the relay (best effort: the manager may be absent in a container), then removes the file.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { launchdEnableCommands, launchdPlistPath, renderLaunchdPlist } from './launchd.js';
import { LAUNCHD_LABEL, type ServiceSpec } from './spec.js';
import { renderSystemdUnit, systemdEnableCommands, systemdUnitPath } from './systemd.js';

export type ServiceResult<T> = ({ ok: true } & T) | { ok: false; error: string };

/** Runs a service-manager command; returns whether it succeeded and what it printed. */
export type CommandRunner = (argv: string[]) => { ok: boolean; output: string };

export function servicePath(platform: NodeJS.Platform, home: string): string | undefined {
  if (platform === 'linux') return systemdUnitPath(home);
  if (platform === 'darwin') return launchdPlistPath(home);
  return undefined;
}

export function installService(
  spec: ServiceSpec,
  platform: NodeJS.Platform,
  home: string,
): ServiceResult<{ file: string; changed: boolean; commands: string[] }> {
  const file = servicePath(platform, home);
  if (!file) return unsupported(platform);
  const text = platform === 'linux' ? renderSystemdUnit(spec) : renderLaunchdPlist(spec);
  const before = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  mkdirSync(dirname(file), { recursive: true });
  if (platform === 'darwin') mkdirSync(spec.logDir, { recursive: true, mode: 0o700 });
  writeFileSync(file, text, { mode: 0o644 });
  const commands = platform === 'linux' ? systemdEnableCommands() : launchdEnableCommands(file);
  if (before !== undefined && before !== text && platform === 'linux')
    commands.unshift('# the unit changed: reload it and restart the relay', 'systemctl --user daemon-reload');
  return { ok: true, file, changed: before !== text, commands };
}

export function uninstallService(
  platform: NodeJS.Platform,
  home: string,
  run: CommandRunner,
  uid: number,
): ServiceResult<{
  file: string;
  removed: boolean;
  ran: { command: string; ok: boolean; output: string }[];
}> {
  const file = servicePath(platform, home);
  if (!file) return unsupported(platform);
  if (!existsSync(file)) return { ok: true, file, removed: false, ran: [] };
  const steps =
    platform === 'linux'
      ? [['systemctl', '--user', 'disable', '--now', 'agentwire.service']]
      : [['launchctl', 'bootout', `gui/${uid}/${LAUNCHD_LABEL}`]];
  const ran = steps.map((argv) => ({ command: argv.join(' '), ...run(argv) }));
  rmSync(file, { force: true });
  if (platform === 'linux') {
    const argv = ['systemctl', '--user', 'daemon-reload'];
    ran.push({ command: argv.join(' '), ...run(argv) });
  }
  return { ok: true, file, removed: true, ran };
}

function unsupported(platform: string): { ok: false; error: string } {
  return {
    ok: false,
    error: `no service manager support for ${platform}: run \`agentwire relay\` under your own supervisor`,
  };
}
