// `agentwire status [--json]`: asks the running relay over its control socket (method `status`);
// with no relay running, reads what the config and the state folder say. `--json` prints the
// StatusSnapshot (docs/operations.md documents it; `schemaVersion` changes only on a breaking change).
import type { Command } from 'commander';
import { readLockFile } from '../ops/doctor/lock-file.js';
import { STATUS_METHOD } from '../ops/status/live.js';
import { offlineStatus } from '../ops/status/offline.js';
import { renderStatus } from '../ops/status/render.js';
import { STATUS_SCHEMA_VERSION, type StatusSnapshot } from '../ops/status/snapshot.js';
import { ExitError, type GlobalOptions, loadContext } from './context.js';
import { callRelay, type RelayCall } from './heartbeat.js';

export interface StatusCliDeps {
  callRelay?: (socket: string, method: string, params: unknown, timeoutMs: number) => Promise<RelayCall>;
}

export function register(program: Command, deps: StatusCliDeps = {}): void {
  program
    .command('status')
    .description('show channels, queue, sessions, next heartbeat and schedules, and recent failures')
    .option('--json', 'print the status snapshot as JSON (schema in docs/operations.md)')
    .action(async (opts: { json?: boolean }) => {
      const ctx = loadContext(program.opts<GlobalOptions>());
      const call = await (deps.callRelay ?? callRelay)(ctx.paths.socket, STATUS_METHOD, {}, 5000);
      let snapshot: StatusSnapshot;
      if (call.type === 'ok') {
        const s = call.result as Partial<StatusSnapshot> | undefined;
        if (s?.schemaVersion !== STATUS_SCHEMA_VERSION)
          throw new ExitError(
            1,
            'The running relay answered with a status this agentwire cannot read: restart the relay after an upgrade.',
          );
        snapshot = s as StatusSnapshot;
      } else {
        const lock = readLockFile(ctx.paths.lock);
        // A live relay that does not answer is a problem to report, not a reason to show stale data.
        if (call.type === 'error' && lock.type === 'held' && lock.alive)
          throw new ExitError(
            1,
            `The relay (pid ${lock.pid}) is running but did not answer on ${ctx.paths.socket}: ${call.message}`,
          );
        snapshot = offlineStatus(ctx.paths, ctx.config, Date.now(), lock);
      }
      process.stdout.write(
        opts.json ? `${JSON.stringify(snapshot, null, 2)}\n` : renderStatus(snapshot, Date.now()),
      );
    });
}
