// Real temp state folders, real fake CLIs (shell scripts) and a doctor run with the real checks.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolvePaths } from '../../../src/config/paths.js';
import { linkStateFromStore } from '../../../src/ops/doctor/link-state.js';
import { readLock } from '../../../src/ops/doctor/lock-file.js';
import { probeCommand } from '../../../src/ops/doctor/probe.js';
import { type DoctorDeps, runDoctor } from '../../../src/ops/doctor/run.js';
import { storeAdmin, storeConfigFor } from '../../../src/store/open.js';
import { tempDir } from '../../helpers/tmp.js';

export interface Setup {
  home: string;
  bin: string;
  env: NodeJS.ProcessEnv;
}

/** A private state folder, an empty bin folder on PATH, and a config file. */
export function setup(config: string = '{whatsapp: {enabled: false}, console: {port: 0}}'): Setup {
  const root = tempDir('aw-doc-');
  const home = join(root, 'state');
  const bin = join(root, 'bin');
  mkdirSync(home, { mode: 0o700 });
  mkdirSync(bin);
  writeFileSync(join(home, 'agentwire.json5'), config);
  return { home, bin, env: { AGENTWIRE_HOME: home, PATH: bin, HOME: root } };
}

/** Writes an executable shell script into the setup's bin folder. */
export function fakeCli(s: Setup, name: string, body: string): string {
  const file = join(s.bin, name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

export async function doctor(s: Setup, over: Partial<DoctorDeps> = {}) {
  const paths = resolvePaths(s.env);
  return runDoctor({
    paths,
    store: (config) => storeAdmin(storeConfigFor(paths, config?.store)),
    env: s.env,
    nodeVersion: 'v24.1.0',
    platform: 'linux',
    uid: process.getuid?.(),
    probe: probeCommand,
    probeTimeoutMs: 5000,
    readLock,
    linkState: linkStateFromStore,
    ...over,
  });
}

export const CLAUDE_OK = 'echo "2.0.14 (Claude Code)"';

/** True once a process no longer runs (gone, or a zombie nobody reaped yet). */
export function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}
