// `agentwire status [--json]`: asks the running relay over its control socket (method `status`);
// with no relay running, reads what the config and the state folder say. `--json` prints the
// StatusSnapshot (docs/operations.md documents it; `schemaVersion` changes only on a breaking change).
import type { Command } from 'commander';
import { type ControlCall, callControl } from '../control/client.js';
import type { RelayStatus } from '../control/methods.js';
import { readLock } from '../ops/doctor/lock-file.js';
import { STATUS_METHOD, snapshotFromRelayStatus } from '../ops/status/live.js';
import { offlineStatus } from '../ops/status/offline.js';
import { renderStatus } from '../ops/status/render.js';
import { STATUS_SCHEMA_VERSION, type StatusSnapshot } from '../ops/status/snapshot.js';
import { storeAdmin, storeConfigFor } from '../store/open.js';
import { VERSION } from '../version.js';
import { type Context, ExitError, type GlobalOptions, loadContext } from './context.js';

export function register(program: Command): void {
  program
    .command('status')
    .description('show channels, queue, sessions, next heartbeat and schedules, and recent failures')
    .option('--json', 'print the status snapshot as JSON (schema in docs/operations.md)')
    .action(async (opts: { json?: boolean }) => {
      const ctx = loadContext(program.opts<GlobalOptions>());
      const call = await callControl(ctx.paths.socket, STATUS_METHOD, {}, { timeoutMs: 5000 });
      const snapshot: StatusSnapshot = { ...(await toSnapshot(ctx, call)), cli: { version: VERSION } };
      process.stdout.write(
        opts.json ? `${JSON.stringify(snapshot, null, 2)}\n` : renderStatus(snapshot, Date.now()),
      );
    });
}

async function toSnapshot(ctx: Context, call: ControlCall): Promise<StatusSnapshot> {
  const now = Date.now();
  if (call.ok) {
    const r = call.result as Partial<StatusSnapshot & RelayStatus> | undefined;
    // A relay may answer the full snapshot, or the core's RelayStatus that the store completes.
    if (r?.schemaVersion === STATUS_SCHEMA_VERSION) return r as StatusSnapshot;
    if (r && typeof r.pid === 'number' && r.queue && r.channels)
      return snapshotFromRelayStatus(
        r as RelayStatus,
        await (await storeAdmin(storeConfigFor(ctx.paths, ctx.config.store))).statusFacts(),
        ctx.config,
        now,
      );
    throw new ExitError(
      1,
      'The running relay answered `status` in a form this agentwire cannot read: restart it after an upgrade.',
    );
  }
  const lock = await readLock(ctx.paths);
  // A live relay that does not answer is a problem to report, not a reason to show stale data.
  if (lock.type === 'live' || lock.type === 'silent') {
    const who = lock.type === 'live' ? `pid ${lock.pid}` : 'pid unknown';
    throw new ExitError(
      1,
      call.notRunning
        ? `The relay (${who}) is running but its control socket ${ctx.paths.socket} is not there (still starting, or the file was removed).`
        : `The relay (${who}) is running but did not answer on ${ctx.paths.socket}: ${call.error}`,
    );
  }
  return offlineStatus(ctx.paths, ctx.config, now, lock);
}
