// `agentwire agent warm-reset [kind]`: forget a failed warm start (drivers/warm-memory.ts), so the
// next message tries the CLI as a live process again. Through the running relay's control socket
// (its pool forgets too); with no relay running, in the store directly.
import type { Command } from 'commander';
import type { AgentKind } from '../agents/types.js';
import { callControl } from '../control/client.js';
import { WARM_RESET_METHOD, WARM_STATE, warmMemory } from '../drivers/warm-memory.js';
import { openStore, storeConfigFor } from '../store/open.js';
import { type Context, ExitError, type GlobalOptions, loadContext } from './context.js';

async function resetStored(ctx: Context, kind: AgentKind | undefined): Promise<AgentKind[]> {
  const store = await openStore(storeConfigFor(ctx.paths, ctx.config.store));
  try {
    const memory = warmMemory(store.channelState(WARM_STATE.channel));
    const all = await memory.load();
    const gone = Object.keys(all).filter((k) => kind === undefined || k === kind);
    for (const k of gone) delete all[k];
    await memory.save(all);
    return gone;
  } finally {
    await store.close();
  }
}

export function registerWarmReset(cmd: Command, program: Command): void {
  cmd
    .command('warm-reset')
    .description('forget a failed warm start: the next message tries the agent live again')
    .argument('[kind]', 'which CLI (default: every one)')
    .action(async (kind: string | undefined) => {
      const ctx = loadContext(program.opts<GlobalOptions>(), process.env, { logFile: 'command' });
      const r = await callControl(ctx.paths.socket, WARM_RESET_METHOD, kind === undefined ? {} : { kind });
      let gone: AgentKind[];
      if (r.ok) gone = (r.result as { reset: AgentKind[] }).reset;
      else if (r.notRunning) gone = await resetStored(ctx, kind);
      else throw new ExitError(1, `The relay could not reset: ${r.error}`);
      process.stdout.write(
        gone.length > 0
          ? `Forgotten: ${gone.join(', ')}. The next message tries it live again.\n`
          : 'No failed warm start was remembered.\n',
      );
    });
}
