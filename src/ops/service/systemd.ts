// A systemd user unit for the relay. Quoting follows systemd.syntax(7): double-quoted words with
// backslash escapes, `%` doubled (specifier expansion) and `$` doubled in ExecStart's arguments
// (variable expansion). KillMode=mixed sends SIGTERM to the relay alone, so it can stop agent runs in its own
// order within the grace period; only leftovers get SIGKILL at the end.
import type { ServiceSpec } from './spec.js';

export function renderSystemdUnit(spec: ServiceSpec): string {
  const lines = [
    '# Written by `agentwire service install`; `agentwire service uninstall` removes it.',
    '[Unit]',
    'Description=agentwire relay (text your coding agent)',
    'StartLimitIntervalSec=300',
    'StartLimitBurst=10',
    '',
    '[Service]',
    'Type=simple',
    // The program path takes no variable expansion, so its `$` stays single; the arguments double it.
    `ExecStart=${[quote(spec.nodePath, false), quote(spec.mainPath, true), quote('relay', true)].join(' ')}`,
    ...Object.entries(spec.env).map(([k, v]) => `Environment=${quote(`${k}=${v}`, false)}`),
    'Restart=on-failure',
    'RestartSec=5',
    'KillMode=mixed',
    `TimeoutStopSec=${spec.stopTimeoutSeconds}`,
    'UMask=0077',
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ];
  return lines.join('\n');
}

function quote(value: string, execLine: boolean): string {
  if (/[\n\r]/.test(value))
    throw new Error(`a service value cannot contain a line break: ${JSON.stringify(value)}`);
  let v = value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%');
  if (execLine) v = v.replace(/\$/g, '$$$$');
  return `"${v}"`;
}

export function systemdUnitPath(home: string): string {
  return `${home}/.config/systemd/user/agentwire.service`;
}

export function systemdEnableCommands(): string[] {
  return [
    'systemctl --user daemon-reload',
    'systemctl --user enable --now agentwire.service',
    '# keep it running after you log out and start it at boot:',
    'loginctl enable-linger "$USER"',
    '# follow it:',
    'systemctl --user status agentwire.service',
    'agentwire logs -f',
  ];
}
