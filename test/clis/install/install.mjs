#!/usr/bin/env node
// node test/clis/install/install.mjs DIR [--offline] [--only=<cli>]
// Installs the pinned agent CLIs (pins.mjs) from the npm registry, each into its own prefix
// DIR/<cli> (no global install, no shared dependency tree), with a link in DIR/bin. A CLI already
// there at its pinned version that answers `--version` is left alone, so a re-run takes seconds.
// npm's output goes to DIR/<cli>/install.log. `--offline`: the npm cache only. A failure is one
// line on stderr saying why (the registry unreachable, or npm's own error), and exit 1.
// Without --only, each CLI is installed by a child of its own (this file with --only), all at
// once: the five installs wait mostly on the registry, and one after another took about a minute
// of CI's time on a fresh machine. Each child writes only under DIR/<cli> and its own link.
import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fixup } from './fixups.mjs';
import { PINS } from './pins.mjs';

const NETWORK =
  /\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|ENOTCACHED)\b/;

function fail(line) {
  process.stderr.write(`test:clis: ${line}\n`);
  process.exit(1);
}

const args = process.argv.slice(2);
const offline = args.includes('--offline');
const only = args.find((a) => a.startsWith('--only='))?.slice('--only='.length);
const dirArg = args.find((a) => !a.startsWith('--'));
if (
  !dirArg ||
  args.some((a) => a.startsWith('--') && a !== '--offline' && !a.startsWith('--only=')) ||
  (only !== undefined && !PINS.some((p) => p.cli === only))
)
  fail(`usage: install.mjs DIR [--offline] [--only=${PINS.map((p) => p.cli).join('|')}]`);
const dir = resolve(dirArg);
mkdirSync(join(dir, 'bin'), { recursive: true });
if (only === undefined) process.exit(await installAll());

// A throwaway HOME/XDG for install scripts and `--version` probes: opencode's postinstall creates
// ~/.config/opencode and friends in whatever HOME it is given; the real one must stay untouched.
const probe = mkdtempSync(join(tmpdir(), 'aw-clis-probe-'));
process.on('exit', () => rmSync(probe, { recursive: true, force: true }));
const probeEnv = {
  ...process.env,
  XDG_CONFIG_HOME: join(probe, 'config'),
  XDG_DATA_HOME: join(probe, 'data'),
  XDG_STATE_HOME: join(probe, 'state'),
  XDG_CACHE_HOME: join(probe, 'cache'),
};

/** Does `<cli> --version` answer? Catches the stubs a skipped postinstall leaves behind. */
function runs(cli) {
  const r = spawnSync(join(dir, cli, 'node_modules', '.bin', cli), ['--version'], {
    env: {
      ...probeEnv,
      HOME: probe,
      CODEX_HOME: join(probe, 'codex'),
      PI_OFFLINE: '1',
      GEMINI_CLI_NO_RELAUNCH: 'true',
    },
    stdio: 'ignore',
    timeout: 60_000,
  });
  return r.status === 0;
}

function installedVersion(cli, pkg) {
  try {
    return JSON.parse(readFileSync(join(dir, cli, 'node_modules', pkg, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

/** npm install into DIR/<cli>; returns undefined, or the one-line reason it failed. */
function npmInstall(cli, spec) {
  const log = join(dir, cli, 'install.log');
  const r = spawnSync(
    'npm',
    [
      'install',
      '--prefix',
      join(dir, cli),
      offline ? '--offline' : '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--save-exact',
      '--loglevel=error',
      spec,
    ],
    { env: probeEnv, encoding: 'utf8', timeout: 15 * 60_000 },
  );
  writeFileSync(log, `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? `\n${r.error.message}` : ''}`, {
    flag: 'a',
  });
  if (r.status === 0) return undefined;
  const text = `${r.stderr ?? ''}${r.error?.message ?? ''}`;
  const net = NETWORK.exec(text);
  if (net) return `cannot install ${spec}: the npm registry is unreachable (${net[1]}); see ${log}`;
  const last =
    text
      .split('\n')
      .filter((l) => /\berr/i.test(l))
      .at(-1)
      ?.trim() ?? `npm exited ${r.status ?? r.signal}`;
  return `npm install ${spec} failed: ${last}; see ${log}`;
}

for (const { cli, pkg, version } of PINS.filter((p) => p.cli === only)) {
  const started = Date.now();
  if (installedVersion(cli, pkg) === version && runs(cli)) {
    process.stderr.write(`${cli.padEnd(8)} ${pkg}@${version}  already installed\n`);
  } else {
    mkdirSync(join(dir, cli), { recursive: true });
    // A package.json of its own stops npm from walking up into an enclosing project.
    const own = join(dir, cli, 'package.json');
    if (!existsSync(own))
      writeFileSync(own, `${JSON.stringify({ name: `agentwire-clis-${cli}`, private: true })}\n`);
    writeFileSync(join(dir, cli, 'install.log'), '');
    const why = npmInstall(cli, `${pkg}@${version}`);
    if (why) fail(why);
    if (!runs(cli)) {
      const fixed = fixup(cli, { dir, pkg, version, runs: () => runs(cli), npmInstall });
      if (fixed) fail(fixed);
    }
    if (!runs(cli))
      fail(`${cli} was installed but \`${cli} --version\` fails; see ${join(dir, cli, 'install.log')}`);
    const s = ((Date.now() - started) / 1000).toFixed(1);
    process.stderr.write(`${cli.padEnd(8)} ${pkg}@${version}  installed in ${s} s\n`);
  }
  const link = join(dir, 'bin', cli);
  if (isLink(link)) unlinkSync(link);
  // Relative, so the folder can be moved.
  symlinkSync(join('..', cli, 'node_modules', '.bin', cli), link);
}

function isLink(p) {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * One child per CLI, all at once. Their progress lines pass through as they come; a failure is
 * still one line (the first failing CLI's in the pins' order: offline, all five fail alike), then
 * exit 1.
 */
async function installAll() {
  const failures = await Promise.all(
    PINS.map(
      ({ cli }) =>
        new Promise((done) => {
          const child = spawn(
            process.execPath,
            [process.argv[1], dir, `--only=${cli}`, ...(offline ? ['--offline'] : [])],
            { stdio: ['ignore', 'inherit', 'pipe'] },
          );
          let failure;
          let rest = '';
          child.stderr.setEncoding('utf8').on('data', (chunk) => {
            const lines = (rest + chunk).split('\n');
            rest = lines.pop() ?? '';
            for (const line of lines) {
              if (line.startsWith('test:clis: ')) failure ??= line;
              else process.stderr.write(`${line}\n`);
            }
          });
          child.on('error', (err) =>
            done(`test:clis: cannot start the installer for ${cli}: ${err.message}`),
          );
          child.on('close', (code) => {
            if (rest.startsWith('test:clis: ')) failure ??= rest;
            else if (rest) process.stderr.write(`${rest}\n`);
            done(code === 0 ? undefined : (failure ?? `test:clis: the installer for ${cli} exited ${code}`));
          });
        }),
    ),
  );
  const first = failures.find((f) => f !== undefined);
  if (first === undefined) return 0;
  process.stderr.write(`${first}\n`);
  return 1;
}
