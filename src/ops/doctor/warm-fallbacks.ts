// The CLIs that run cold because a warm start failed and the relay remembered it (warm-memory.ts):
// doctor says which, why, and how to try warm again. Read from the store file, read-only.
import type { Paths } from '../../config/paths.js';
import { scrub } from '../../log.js';
import { readWarmFallbacksFile } from '../../store/sqlite/status-read.js';
import { type Finding, warn } from './types.js';

export function checkWarmFallbacks(paths: Pick<Paths, 'db'>): Finding[] {
  return Object.entries(readWarmFallbacksFile(paths.db)).map(([kind, reason]) =>
    warn(
      `warm:${kind}`,
      `${kind} runs cold: its warm start failed${reason ? ` (${scrub(reason).slice(0, 200)})` : ''}, remembered until its command or CLI changes`,
      `fix the cause, then \`agentwire agent warm-reset ${kind}\` to try it live again`,
    ),
  );
}
