// `agentwire chat` and `heartbeat` log like the relay: into the rotated file that `agentwire logs`
// reads, and as readable lines (not raw JSON) when a person watches the terminal. The terminal is a
// real pseudo-terminal (util-linux `script`), so stderr.isTTY is what a person's shell gives.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Home, MAIN, makeHome, spawnNode } from './helpers.js';

let home: Home | undefined;
afterEach(() => {
  home?.cleanup();
  home = undefined;
});
beforeAll(() => {
  expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
});

const logFile = (h: Home) => join(h.dir, 'logs', 'agentwire.log');
const hasScript = spawnSync('script', ['--version']).status === 0;

describe('agentwire chat logs', () => {
  it('leaves its lines for `agentwire logs`, and keeps JSON on stderr when piped', async () => {
    home = makeHome();
    const env = { ...home.env, AGENTWIRE_LOG_LEVEL: 'debug' };
    const p = spawnNode([MAIN, 'chat'], env, 'hello\n');
    expect((await p.exit).code).toBe(0);
    expect(p.stdout()).toBe('reply: hello\n');
    const lines = readFileSync(logFile(home), 'utf8').trim().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) expect(JSON.parse(l)).toHaveProperty('msg');
    // Piped (a script reads it): every line still on stderr, as JSON.
    const err = p.stderr().trim().split('\n').filter(Boolean);
    expect(err.length).toBeGreaterThan(0);
    for (const l of err) expect(() => JSON.parse(l)).not.toThrow();
    const shown = execFileSync(process.execPath, [MAIN, 'logs'], { env, encoding: 'utf8' });
    expect(shown).toMatch(/^\S+Z (DEBUG|INFO) +\w+ /m);
  });

  // Skipped only where util-linux `script` (a pty) is missing; Debian installs it with util-linux.
  it.skipIf(!hasScript)('shows readable lines in a terminal, never raw JSON', () => {
    home = makeHome();
    const cmd = `printf 'hello\\n' | ${JSON.stringify(process.execPath)} ${JSON.stringify(MAIN)} chat`;
    const r = spawnSync('script', ['-qec', cmd, '/dev/null'], {
      env: { ...home.env, AGENTWIRE_LOG_LEVEL: 'debug' },
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('reply: hello');
    expect(r.stdout).toMatch(/^\S+Z (DEBUG|INFO) +\w+ /m);
    expect(r.stdout).not.toMatch(/^\{"level"/m);
  });
});
