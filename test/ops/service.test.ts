import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { installService, uninstallService } from '../../src/ops/service/install.js';
import { renderLaunchdPlist } from '../../src/ops/service/launchd.js';
import { type ServiceSpec, serviceEnv } from '../../src/ops/service/spec.js';
import { renderSystemdUnit } from '../../src/ops/service/systemd.js';
import { tempDir } from '../helpers/tmp.js';

const bin = new URL('../../dist/cli/bin.js', import.meta.url).pathname;
const tmp = () => tempDir('aw-svc-');

const spec: ServiceSpec = {
  nodePath: '/opt/node 24/bin/node',
  mainPath: '/usr/lib/node_modules/agentwire/dist/cli/bin.js',
  env: {
    AGENTWIRE_HOME: '/srv/aw 100%',
    PATH: '/home/u/.local/bin:/usr/bin',
    AGENTWIRE_CONFIG: '/etc/a"w".json5',
  },
  stopTimeoutSeconds: 30,
  logDir: '/srv/aw/logs',
};

describe('renderSystemdUnit', () => {
  const unit = renderSystemdUnit(spec);
  it('runs the absolute node and CLI paths with `relay`, restarting on failure', () => {
    expect(unit).toContain(
      'ExecStart="/opt/node 24/bin/node" "/usr/lib/node_modules/agentwire/dist/cli/bin.js" "relay"',
    );
    expect(unit).toMatch(/^Restart=on-failure$/m);
    expect(unit).toMatch(/^RestartSec=\d+$/m);
    expect(unit).toMatch(/^TimeoutStopSec=30$/m);
    expect(unit).toMatch(/^WantedBy=default.target$/m);
  });
  it('quotes environment values the systemd way (% doubled, quotes escaped)', () => {
    expect(unit).toContain('Environment="AGENTWIRE_HOME=/srv/aw 100%%"');
    expect(unit).toContain('Environment="AGENTWIRE_CONFIG=/etc/a\\"w\\".json5"');
    expect(unit).toContain('Environment="PATH=/home/u/.local/bin:/usr/bin"');
  });
  it('doubles $ in arguments, not in the program path', () => {
    const u = renderSystemdUnit({ ...spec, nodePath: '/n$x/node', mainPath: '/m$y/main.js' });
    expect(u).toContain('ExecStart="/n$x/node" "/m$$y/main.js" "relay"');
  });
  it('refuses a value with a line break instead of writing a broken unit', () => {
    expect(() => renderSystemdUnit({ ...spec, env: { X: 'a\nExecStartPre=/bin/evil' } })).toThrow(
      /line break/,
    );
  });
});

describe('renderLaunchdPlist', () => {
  const plist = renderLaunchdPlist({ ...spec, env: { ...spec.env, AGENTWIRE_HOME: '/srv/a&b<c>' } });
  it('lists the program arguments in order and restarts only after a failure', () => {
    const args = [...plist.matchAll(/<string>([^<]*)<\/string>/g)].map((m) => m[1]);
    const i = args.indexOf(spec.nodePath);
    expect(args.slice(i, i + 3)).toEqual([spec.nodePath, spec.mainPath, 'relay']);
    expect(plist).toMatch(/<key>KeepAlive<\/key>\s*<dict>\s*<key>SuccessfulExit<\/key>\s*<false\/>/);
    expect(plist).toMatch(/<key>RunAtLoad<\/key>\s*<true\/>/);
    expect(plist).toContain('<string>dev.agentwire.relay</string>');
  });
  it('escapes XML in values', () => {
    expect(plist).toContain('<key>AGENTWIRE_HOME</key>\n    <string>/srv/a&amp;b&lt;c&gt;</string>');
    expect(plist).toContain('/etc/a&quot;w&quot;.json5');
  });
});

describe('serviceEnv', () => {
  it('carries the state folder, config, log level and PATH when set, nothing else', () => {
    const env = serviceEnv({
      AGENTWIRE_HOME: '/h',
      PATH: '/bin',
      TWILIO_AUTH_TOKEN: 'secret',
      HOME: '/root',
    });
    expect(env).toEqual({ AGENTWIRE_HOME: '/h', PATH: '/bin' });
    expect(serviceEnv({}, '/abs/c.json5')).toEqual({ AGENTWIRE_CONFIG: '/abs/c.json5' });
  });
});

describe('install and uninstall into a temp HOME', () => {
  it.each(['linux', 'darwin'] as const)('%s', (platform) => {
    const home = tmp();
    const r = installService({ ...spec, logDir: join(home, 'state', 'logs') }, platform, home);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const expected =
      platform === 'linux'
        ? join(home, '.config/systemd/user/agentwire.service')
        : join(home, 'Library/LaunchAgents/dev.agentwire.relay.plist');
    expect(r.file).toBe(expected);
    expect(readFileSync(expected, 'utf8')).toContain(spec.mainPath);
    expect(r.changed).toBe(true);
    const again = installService({ ...spec, logDir: join(home, 'state', 'logs') }, platform, home);
    expect(again.ok && again.changed).toBe(false);

    const ran: string[][] = [];
    const record = (argv: string[]) => {
      ran.push(argv);
      return { ok: true, output: '' };
    };
    const u = uninstallService(platform, home, record, 501);
    expect(u.ok && u.removed).toBe(true);
    expect(existsSync(expected)).toBe(false);
    expect(ran[0]).toEqual(
      platform === 'linux'
        ? ['systemctl', '--user', 'disable', '--now', 'agentwire.service']
        : ['launchctl', 'bootout', 'gui/501/dev.agentwire.relay'],
    );
    const none = uninstallService(platform, home, () => ({ ok: true, output: '' }), 501);
    expect(none.ok && none.removed).toBe(false);
  });

  it('refuses on a platform without a supported service manager', () => {
    const r = installService(spec, 'win32', tmp());
    expect(r.ok).toBe(false);
  });
});

describe('agentwire service (built binary)', () => {
  it('installs a unit naming this node and this CLI, then uninstall stops it and removes it', () => {
    const home = tmp();
    const fakeBin = join(home, 'bin');
    mkdirSync(fakeBin);
    const calls = join(home, 'systemctl.calls');
    // The far edge: a stand-in systemctl that records how it was called.
    writeFileSync(join(fakeBin, 'systemctl'), `#!/bin/sh\necho "$@" >> '${calls}'\n`);
    chmodSync(join(fakeBin, 'systemctl'), 0o755);
    const env = {
      HOME: home,
      AGENTWIRE_HOME: join(home, 'state'),
      PATH: `${fakeBin}:${dirname(process.execPath)}:/usr/bin:/bin`,
    };
    const run = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { env, encoding: 'utf8' });
    const inst = run(['service', 'install', '--user']);
    expect(inst.status, inst.stderr).toBe(0);
    expect(inst.stdout).toContain('systemctl --user enable --now agentwire.service');
    expect(inst.stdout).toContain('loginctl enable-linger');
    const unit = join(home, '.config/systemd/user/agentwire.service');
    const text = readFileSync(unit, 'utf8');
    expect(text).toContain(`ExecStart="${process.execPath}" "${bin}" "relay"`);
    expect(text).toContain(`Environment="AGENTWIRE_HOME=${join(home, 'state')}"`);
    expect(text).toContain(`Environment="PATH=${env.PATH}"`);
    expect(statSync(unit).mode & 0o777).toBe(0o644);

    const un = run(['service', 'uninstall']);
    expect(un.status, un.stderr).toBe(0);
    expect(existsSync(unit)).toBe(false);
    expect(readFileSync(calls, 'utf8').trim().split('\n')).toEqual([
      '--user disable --now agentwire.service',
      '--user daemon-reload',
    ]);
  });

  it('does not write a unit for an invalid config', () => {
    const home = tmp();
    writeFileSync(join(home, 'bad.json5'), '{queue: {maxConcurrentRuns: 0}}');
    const r = spawnSync(process.execPath, [bin, '--config', join(home, 'bad.json5'), 'service', 'install'], {
      env: { HOME: home, PATH: process.env.PATH ?? '' },
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('queue.maxConcurrentRuns');
    expect(existsSync(join(home, '.config/systemd/user/agentwire.service'))).toBe(false);
  });
});
