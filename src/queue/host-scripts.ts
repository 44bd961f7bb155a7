// The user's own commands' scripts (`commands.<name>.run`), run by the queue's process: each in the
// agent's working folder, made (private) the first time as a run would. At shutdown the running ones
// are stopped (their process groups too) and waited for.
import { mkdirSync } from 'node:fs';
import type { RunCheck } from '../heartbeat/check.js';
import { checkEnv, createRunCheck } from '../heartbeat/run-check.js';
import type { Launcher } from '../runner/launcher/client.js';

export class HostScripts {
  private readonly stopping = new AbortController();
  private readonly running = new Set<Promise<unknown>>();

  constructor(
    private readonly cwd: string,
    /** The relay's launcher (`agents.launcher`): scripts start from it, as the agents do. */
    private readonly launcher?: Launcher,
  ) {}

  /** The runner custom commands call. */
  runner(): RunCheck {
    const cwd = this.cwd;
    const run = createRunCheck({
      env: checkEnv(process.env),
      cwd,
      signal: this.stopping.signal,
      ...(this.launcher && { launcher: this.launcher }),
    });
    return (argv, timeoutMs) => {
      mkdirSync(cwd, { recursive: true, mode: 0o700 });
      const p = run(argv, timeoutMs);
      this.running.add(p);
      void p.finally(() => this.running.delete(p));
      return p;
    };
  }

  /** Stops every running script and waits for them: a script is not a turn to let finish. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await Promise.all(this.running);
  }
}
