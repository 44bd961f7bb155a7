// spawnProcess's run started from a launcher process (client.ts) instead of this one: the same
// request execa gets in spawn.ts (argv, cwd, the whole environment, stdin piped only when fed),
// its events fed to the same state machine (run-settle.ts), so caps, line callbacks, timeout and
// abort (TERM then KILL of the group and the mark, from this process by pid), the pipe grace and
// the run mark hold as they do there. What only a launcher can do, die while the program runs, ends
// the run as spawn_failed (the client has killed the group, the state machine the marked rest).
import type { Launch } from '../../core/sandbox.js';
import { type SettleContext, settleRun } from '../run-settle.js';
import type { Launcher, LaunchHandle } from './client.js';

export function startLaunched(
  launcher: Launcher,
  launch: Launch,
  env: Record<string, string>,
  ctx: Omit<SettleContext, 'dropPipes'>,
): void {
  const { opts } = ctx;
  let handle: LaunchHandle | undefined;
  let dropped = false;
  const run = settleRun({
    ...ctx,
    dropPipes: () => {
      dropped = true;
      handle?.release();
    },
  });
  void launcher
    .launch({
      file: launch.file,
      args: launch.args,
      cwd: opts.cwd,
      env,
      stdin: opts.input !== undefined,
      mark: ctx.mark,
      onStart: (h) => {
        handle = h;
        run.started(h.pid);
        if (opts.input !== undefined) {
          h.write(opts.input);
          h.end();
        }
        // Settled before the start was known (a failure cannot be, but keep the pipes' rule).
        if (dropped) h.release();
      },
      onStdout: (c) => run.stdout(c),
      onStderr: (c) => run.stderr(c),
      onStdoutEnd: () => run.stdoutClosed(),
      onStderrEnd: () => run.stderrClosed(),
      onExit: (e) => {
        switch (e.type) {
          case 'exited':
            run.exited(e.code, e.signal);
            return;
          case 'launcher_died':
            run.failed({
              type: 'spawn_failed',
              message: `launcher: ${e.message}`,
              durationMs: 0,
              launcher: 'died',
            });
            return;
        }
      },
    })
    .then((s) => {
      switch (s.type) {
        case 'started':
          return;
        case 'not_found':
          // Sandboxed, the missing program is bwrap itself (as in spawn.ts).
          if (opts.sandbox)
            run.failed({ type: 'spawn_failed', message: s.message, durationMs: 0, sandbox: true });
          else run.failed({ type: 'not_found', file: opts.file, message: s.message, durationMs: 0 });
          return;
        case 'spawn_failed':
          run.failed({ type: 'spawn_failed', message: s.message, durationMs: 0 });
          return;
        case 'launcher_failed':
          run.failed({ type: 'spawn_failed', message: `launcher: ${s.message}`, durationMs: 0 });
          return;
      }
    });
}
