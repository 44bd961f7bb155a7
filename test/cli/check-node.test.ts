// scripts/check-node.mjs, the first step of `npm test`: one line and exit 1 on a Node too old for
// the tests, silence on a good one, and the same minimum as the bin's own rule.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MIN_NODE, nodeIsNewEnough } from '../../src/core/node-version.js';

const script = new URL('../../scripts/check-node.mjs', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  engines: { node: string };
  scripts: Record<string, string>;
};

describe('the test commands check the Node first', () => {
  it("package.json's engines.node is the bin's minimum (the script reads the former)", () => {
    expect(pkg.engines.node).toBe(`>=${MIN_NODE[0]}.${MIN_NODE[1]}`);
    expect(MIN_NODE[2]).toBe(0);
  });

  it('npm test and test:stress run it before anything else', () => {
    for (const name of ['test', 'test:stress']) {
      expect(pkg.scripts[name]?.startsWith('node scripts/check-node.mjs && ')).toBe(true);
    }
  });

  it('is silent and exits 0 on this Node', () => {
    const r = spawnSync(process.execPath, [script], { encoding: 'utf8' });
    expect(r).toMatchObject({ status: 0, stdout: '', stderr: '' });
  });
});

// The machine's own Node (Debian's, often older than ours) is the real old Node to prove this on.
const OLD = process.env.AGENTWIRE_OLD_NODE ?? '/usr/bin/node';
const oldVersion = existsSync(OLD) ? spawnSync(OLD, ['--version'], { encoding: 'utf8' }).stdout?.trim() : '';
const haveOld = Boolean(oldVersion) && !nodeIsNewEnough(oldVersion);

describe.runIf(haveOld)(`on a Node older than 22.13 (${OLD} is ${oldVersion})`, () => {
  it('says so in one line and exits 1', () => {
    const r = spawnSync(OLD, [script], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(`^agentwire's tests need Node 22\\.13 or newer; this is ${oldVersion} `),
      ),
      '',
    ]);
  });
});
