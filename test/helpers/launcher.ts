// Shared by the launcher's tests (test/runner/launcher*.test.ts): a temp folder for scripts,
// launchers and processes remembered so that a failing test leaves nothing running, and small
// waits that poll a condition with a bound.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Launcher,
  type LauncherOptions,
  type LaunchHandle,
  type LaunchRequest,
  type LaunchStart,
  startLauncher,
} from '../../src/runner/launcher/client.js';
import { alive } from '../e2e/helpers.js';

export const node = process.execPath;
export const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

/** True while the process exists and is not a zombie waiting to be reaped (one definition, e2e's). */
export { alive };

export async function waitFor(cond: () => boolean, ms = 5000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; ) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return cond();
}

export const waitGone = (pid: number) => waitFor(() => !alive(pid));

export interface Collected {
  start: LaunchStart;
  stdout: () => Buffer;
  stderr: () => Buffer;
  /** Every event in order: 'out', 'err', 'out_end', 'err_end', 'exit'. */
  events: string[];
}

/** A launch whose output and events are collected (the request's own callbacks are replaced). */
export async function run(
  l: Launcher,
  req: Omit<LaunchRequest, 'env'> & { env?: Record<string, string> },
): Promise<Collected> {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const events: string[] = [];
  const start = await l.launch({
    env,
    ...req,
    onStdout: (c) => {
      out.push(c);
      events.push('out');
    },
    onStderr: (c) => {
      err.push(c);
      events.push('err');
    },
    onStdoutEnd: () => events.push('out_end'),
    onStderrEnd: () => events.push('err_end'),
    onExit: () => events.push('exit'),
  });
  return { start, stdout: () => Buffer.concat(out), stderr: () => Buffer.concat(err), events };
}

export function started(s: LaunchStart): LaunchHandle {
  if (s.type !== 'started') throw new Error(`expected a start, got ${JSON.stringify(s)}`);
  return s.handle;
}

/** A test file's temp folder, launchers and strays; `cleanup` in its afterAll. */
export function launcherFixture(prefix: string) {
  // Made when first asked for: a file whose every test skips runs no afterAll to remove it.
  let made: string | undefined;
  const dir = () => {
    made ??= mkdtempSync(join(tmpdir(), prefix));
    return made;
  };
  const launchers: Launcher[] = [];
  const strays: number[] = [];
  return {
    get dir() {
      return dir();
    },
    strays,
    script(name: string, body: string): string {
      const file = join(dir(), name);
      writeFileSync(file, body);
      return file;
    },
    newLauncher(opts?: LauncherOptions): Launcher {
      const l = startLauncher(opts);
      launchers.push(l);
      return l;
    },
    async cleanup(): Promise<void> {
      for (const l of launchers) await l.stop();
      for (const pid of strays) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      if (made) rmSync(made, { recursive: true, force: true });
    },
  };
}
