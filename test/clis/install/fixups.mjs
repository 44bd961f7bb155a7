// What the installer does when a CLI's postinstall script did not run (npm --ignore-scripts, or an
// allow-scripts policy) and `<cli> --version` fails. Each returns undefined, or one line saying why
// it could not be fixed.

import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const platform = `${process.platform}-${process.arch}`; // e.g. linux-x64

export function fixup(cli, { dir, pkg, version, npmInstall }) {
  const modules = join(dir, cli, 'node_modules');
  switch (cli) {
    case 'claude': {
      // Its install.cjs links the native binary from @anthropic-ai/claude-code-<platform> over
      // bin/claude.exe; without it `claude` is a stub ("claude native binary not installed").
      const r = spawnSync(process.execPath, [join(modules, pkg, 'install.cjs')], {
        cwd: join(dir, cli),
        stdio: 'ignore',
      });
      return r.status === 0 ? undefined : `claude's install.cjs failed (exit ${r.status})`;
    }
    case 'codex':
      // The Rust binary is the optional dependency @openai/codex-<platform>, published as a version
      // of @openai/codex itself; npm sometimes skips it.
      return npmInstall(cli, `@openai/codex-${platform}@npm:@openai/codex@${version}-${platform}`);
    case 'opencode': {
      // Its postinstall copies the Bun binary for this platform (the -baseline build on CPUs
      // without AVX2) to opencode-ai/bin/opencode.exe.
      const [os, arch] = platform.split('-');
      const avx2 = /\bavx2\b/.test(safeRead('/proc/cpuinfo'));
      const from = join(
        modules,
        `opencode-${os === 'win32' ? 'windows' : os}-${arch}${arch === 'x64' && !avx2 && os === 'linux' ? '-baseline' : ''}`,
        'bin',
        'opencode',
      );
      const to = join(modules, 'opencode-ai', 'bin', 'opencode.exe');
      try {
        copyFileSync(from, to);
        chmodSync(to, 0o755);
        return undefined;
      } catch (err) {
        return `opencode's binary could not be put in place: ${err.message}`;
      }
    }
    default:
      return undefined;
  }
}

function safeRead(file) {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
