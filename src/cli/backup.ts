// `agentwire backup <file>`: a consistent copy of the store (WhatsApp link, sessions, queue, outbox,
// schedule state), safe while the relay runs. The config names the store (`store.engine`); an invalid
// config still lets the state folder's SQLite store be copied (the case it cannot name another).
// A PostgreSQL store is refused with one sentence pointing at pg_dump (store/postgres/admin.ts).
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { AGENT_KINDS } from '../agents/registry.js';
import { loadConfig } from '../config/load.js';
import { resolvePaths } from '../config/paths.js';
import { storeAdmin, storeConfigFor } from '../store/open.js';
import { ExitError, type GlobalOptions } from './context.js';

export function register(program: Command): void {
  program
    .command('backup <file>')
    .description('copy the store to FILE (mode 0600) consistently, even while the relay runs')
    .action(async (file: string) => {
      const paths = resolvePaths(process.env, program.opts<GlobalOptions>().config);
      const dest = resolve(file);
      const loaded = loadConfig(paths.configFile, paths.configExplicit, process.env, AGENT_KINDS);
      const store = await storeAdmin(storeConfigFor(paths, loaded.ok ? loaded.config.store : undefined));
      const r = await store.backup(dest);
      if (!r.ok) throw new ExitError(1, r.error);
      process.stdout.write(
        `backed up ${store.where} to ${dest} (${r.bytes} bytes)\n` +
          `Keep the config (${paths.configFile}) and the environment it names with it; see docs/operations.md.\n`,
      );
    });
}
