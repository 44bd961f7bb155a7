// `npm run test:clis` when it cannot run: no way to make the loopback-only namespace, or no npm
// registry for the install. Each says why in one line and exits non-zero (never a pass it did not
// run). Runs in `npm test`: no CLI is installed and nothing leaves 127.0.0.1.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/tmp.js';

const root = new URL('../../../', import.meta.url).pathname;
const tmp = tempDir('aw-clis-canrun-');

/** The whole PATH: the few real tools run.sh needs, and fake commands (name → shell body). */
function fakePath(fakes: Record<string, string>): string {
  const dir = mkdtempSync(join(tmp, 'bin-'));
  for (const tool of ['sh', 'dirname', 'id', 'head']) symlinkSync(`/usr/bin/${tool}`, join(dir, tool));
  symlinkSync(process.execPath, join(dir, 'node'));
  for (const [name, body] of Object.entries(fakes)) {
    writeFileSync(join(dir, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(dir, name), 0o755);
  }
  return dir;
}

function run(cmd: string[], env: Record<string, string>) {
  const r = spawnSync(cmd[0] ?? 'sh', cmd.slice(1), {
    cwd: root,
    env: { HOME: tmp, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const oneLine = (s: string) => s.split('\n').filter(Boolean);

describe('test:clis cannot run', () => {
  it.each([
    [
      'namespaces not permitted',
      { unshare: 'echo "unshare: unshare failed: Operation not permitted" >&2; exit 1', ip: 'exit 0' },
      /^test:clis: cannot run the real CLIs isolated: `unshare -r?n` is not permitted here \(unshare: unshare failed: Operation not permitted\)$/,
    ],
    [
      'no ip to bring loopback up',
      { unshare: 'exit 0' },
      /^test:clis: cannot run the real CLIs isolated: `ip` is not installed \(iproute2\)/,
    ],
    [
      'no unshare',
      { ip: 'exit 0' },
      /^test:clis: cannot run the real CLIs isolated: `unshare` is not installed/,
    ],
  ])('%s: run.sh says why in one line, exits 1, installs nothing', (_what, fakes, line) => {
    const clis = join(tmp, `clis-${Math.random().toString(36).slice(2)}`);
    const r = run(['/bin/sh', 'test/clis/run.sh'], {
      PATH: fakePath(fakes),
      AGENTWIRE_CLIS_DIR: clis,
      // Were the check ever to pass here, npm must still not reach the real registry.
      npm_config_registry: 'http://127.0.0.1:9/',
      npm_config_offline: 'true',
    });
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toEqual([expect.stringMatching(line)]);
    expect(() => readdirSync(clis)).toThrow(); // nothing was installed
  });

  it('without the npm registry, the installer says it is unreachable in one line and exits 1', () => {
    const clis = join(tmp, 'clis-offline');
    mkdirSync(clis);
    const r = run([process.execPath, 'test/clis/install/install.mjs', clis], {
      PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
      // A registry on a closed loopback port and an empty cache: what a machine without network sees.
      npm_config_registry: 'http://127.0.0.1:9/',
      npm_config_cache: join(tmp, 'npm-cache'),
      npm_config_fetch_retries: '0',
      npm_config_update_notifier: 'false',
    });
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toEqual([
      expect.stringMatching(
        /^test:clis: cannot install @anthropic-ai\/claude-code@[\d.]+: the npm registry is unreachable \(ECONNREFUSED\); see .*install\.log$/,
      ),
    ]);
  });
});
