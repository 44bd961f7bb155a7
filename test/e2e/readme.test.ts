// README's first command starts the relay from the clone at once: `npm start` runs the built bin,
// never `npx agentwire`, which in a clone copies and rebuilds the package into npx's cache first
// (a minute of silence). Checked by running what README says, with a state folder where no
// channel is enabled, so the relay's own refusal proves it was the relay that ran.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { type Home, makeHome, ROOT } from './helpers.js';

let home: Home | undefined;
afterEach(() => {
  home?.cleanup();
  home = undefined;
});

describe("README's set-up commands", () => {
  it('the first installs and starts the relay with `npm start`, which runs the built relay', () => {
    const block = /## Set up[\s\S]*?```sh\n([\s\S]*?)```/.exec(readFileSync('README.md', 'utf8'))?.[1] ?? '';
    const [install, tests] = block.split('\n').map((l) => l.replace(/\s+#.*$/, '').trim());
    expect(install).toBe('npm install && npm start');
    expect(tests).toBe('npm test');
    home = makeHome({ whatsapp: { enabled: false } });
    const r = spawnSync('npm', ['start', '--silent'], { cwd: ROOT, env: home.env, encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`No channel is enabled in ${home.configFile}`);
  });
});
