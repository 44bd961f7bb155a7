// Once per `npm run test:clis`: make sure the pinned CLIs are there (offline: run.sh installed them
// before entering the network namespace) and start one fake model server on 127.0.0.1 for all tests.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    fakeLlm: string;
    clisDir: string;
    harness: string;
  }
}

let server: ChildProcess | undefined;

export default async function setup(project: TestProject): Promise<() => void> {
  const harness =
    process.env.AGENT_CLIS_HARNESS ??
    join(import.meta.dirname, '..', '..', '..', 'shared', 'harness', 'agent-clis');
  const clisDir = process.env.AGENT_CLIS_DIR ?? join(homedir(), '.cache', 'agentwire-clis');
  if (process.env.AGENT_CLIS_NETNS !== '1') {
    process.stderr.write('test:clis: not inside netns.sh; use `npm run test:clis` for an isolated run\n');
  }
  execFileSync(join(harness, 'install.sh'), [clisDir, '--offline'], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });

  const child = spawn(process.execPath, [join(harness, 'fake-llm.mjs'), '--port', '0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  server = child;
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => {
      const m = /LISTENING (\d+)/.exec(d.toString());
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', () => reject(new Error('fake-llm exited before listening')));
  });
  project.provide('fakeLlm', `http://127.0.0.1:${port}`);
  project.provide('clisDir', clisDir);
  project.provide('harness', harness);
  return () => {
    // Stopped by its own handle (its PID), nothing else.
    server?.kill();
  };
}
