// The `agentwire` bin (dist/cli/bin.js) as a user runs it: on a Node too old for node:sqlite it says
// so in one line for every command, and `--version` names the package version.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeIsNewEnough, nodeVersionProblem } from '../../src/core/node-version.js';
import { tempDir } from '../helpers/tmp.js';

const bin = new URL('../../dist/cli/bin.js', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
  bin: Record<string, string>;
};
const home = tempDir('aw-cli-bin-');

function run(node: string, args: string[]) {
  const r = spawnSync(node, [bin, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: home, AGENTWIRE_HOME: home },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('which Node is new enough', () => {
  it.each([
    ['v22.13.0', true],
    ['22.13.0', true],
    ['v22.13.1', true],
    ['v22.14.0', true],
    ['v23.0.0', true],
    ['v24.21.0', true],
    ['v100.0.0', true],
    ['v22.12.9', false],
    ['v22.2.0', false],
    ['v21.99.99', false],
    ['v20.20.2', false],
    ['v18.20.0', false],
    ['v0.10.48', false],
    ['v22.13.0-nightly20250101', true],
    ['v22', false],
    ['', false],
    ['garbage', false],
    ['v22.x.0', false],
  ])('%s → %s', (version, good) => {
    expect(nodeIsNewEnough(version)).toBe(good);
    const problem = nodeVersionProblem(version, '/opt/node/bin/node');
    if (good) expect(problem).toBeUndefined();
    else {
      expect(problem).toContain(`/opt/node/bin/node is ${version}`);
      expect(problem).toContain('Node.js 22.13.0 or newer');
      expect(problem).toContain('install Node 24');
      expect(problem).not.toContain('\n');
    }
  });
});

describe('the bin', () => {
  it('is what package.json installs as `agentwire`', () => {
    expect(pkg.bin.agentwire).toBe('dist/cli/bin.js');
  });

  it('runs as a program, as `npx agentwire` in a fresh clone runs it (the build makes it executable)', () => {
    const r = spawnSync(bin, ['--version'], {
      encoding: 'utf8',
      env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` },
    });
    expect(r.error).toBeUndefined();
    expect(r.stdout).toBe(`${pkg.version}\n`);
  });

  it('--version prints the package version', () => {
    for (const flag of ['--version', '-v']) {
      const r = run(process.execPath, [flag]);
      expect(r).toMatchObject({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
    }
  });
});

// The machine's own Node (Debian's, often older than ours) is the real old Node to prove this on.
const OLD = process.env.AGENTWIRE_OLD_NODE ?? '/usr/bin/node';
const oldVersion = existsSync(OLD) ? spawnSync(OLD, ['--version'], { encoding: 'utf8' }).stdout?.trim() : '';
const haveOld = Boolean(oldVersion) && !nodeIsNewEnough(oldVersion);
const why = haveOld
  ? `${OLD} is ${oldVersion}`
  : `skipped: ${OLD} is ${oldVersion || 'missing'}, not a Node older than 22.13 (set AGENTWIRE_OLD_NODE)`;

describe.runIf(haveOld)(`on a Node older than 22.13 (${why})`, () => {
  it.each([['--help'], ['--version'], ['doctor'], ['status', '--json'], ['relay']])(
    'agentwire %s says in one line what to install, with no stack trace',
    (...args) => {
      const r = run(OLD, args);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).not.toContain('ERR_UNKNOWN_BUILTIN_MODULE');
      // One line: the rule's own sentence for this Node (execPath is the real path of OLD).
      expect(r.stderr.split('\n')).toEqual([
        expect.stringContaining(`is ${oldVersion}: install Node 24`),
        '',
      ]);
      expect(r.stderr).toContain('agentwire needs Node.js 22.13.0 or newer');
    },
  );
});
