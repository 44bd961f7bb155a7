// A launchd agent for the relay (macOS). KeepAlive.SuccessfulExit=false restarts it after a crash
// but not after a clean stop; ThrottleInterval spaces restarts like systemd's RestartSec.
import type { ServiceSpec } from './spec.js';
import { LAUNCHD_LABEL } from './spec.js';

export function renderLaunchdPlist(spec: ServiceSpec): string {
  const args = [spec.nodePath, spec.mainPath, 'relay'].map((a) => `    <string>${xml(a)}</string>`);
  const env = Object.entries(spec.env).flatMap(([k, v]) => [
    `    <key>${xml(k)}</key>`,
    `    <string>${xml(v)}</string>`,
  ]);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<!-- Written by `agentwire service install`; `agentwire service uninstall` removes it. -->',
    '<plist version="1.0">',
    '<dict>',
    '  <key>Label</key>',
    `  <string>${LAUNCHD_LABEL}</string>`,
    '  <key>ProgramArguments</key>',
    '  <array>',
    ...args,
    '  </array>',
    '  <key>EnvironmentVariables</key>',
    '  <dict>',
    ...env,
    '  </dict>',
    '  <key>RunAtLoad</key>',
    '  <true/>',
    '  <key>KeepAlive</key>',
    '  <dict>',
    '    <key>SuccessfulExit</key>',
    '    <false/>',
    '  </dict>',
    '  <key>ThrottleInterval</key>',
    '  <integer>10</integer>',
    '  <key>ExitTimeOut</key>',
    `  <integer>${spec.stopTimeoutSeconds}</integer>`,
    '  <key>Umask</key>',
    '  <integer>63</integer>',
    '  <key>StandardOutPath</key>',
    `  <string>${xml(`${spec.logDir}/launchd.out.log`)}</string>`,
    '  <key>StandardErrorPath</key>',
    `  <string>${xml(`${spec.logDir}/launchd.err.log`)}</string>`,
    '</dict>',
    '</plist>',
    '',
  ].join('\n');
}

function xml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function launchdPlistPath(home: string): string {
  return `${home}/Library/LaunchAgents/${LAUNCHD_LABEL}.plist`;
}

export function launchdEnableCommands(plist: string): string[] {
  return [
    `launchctl bootstrap gui/$(id -u) ${shellQuote(plist)}`,
    `launchctl kickstart -k gui/$(id -u)/${LAUNCHD_LABEL}`,
    '# follow it:',
    `launchctl print gui/$(id -u)/${LAUNCHD_LABEL}`,
    'agentwire logs -f',
  ];
}

export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:@%+=-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
