// A failed warm start, remembered in the store: a relay restart would otherwise try the start
// again and make the first message wait the whole start limit each time. What is remembered is
// tied to a fingerprint of what was started (the command, the names of its environment, the
// program file's size and time), so a config change or an upgraded CLI tries warm again by itself;
// `agentwire agent warm-reset` forgets it by hand.
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import type { AgentKind } from '../agents/types.js';

export interface Remembered {
  fingerprint: string;
  reason: string;
  /** When the start failed (ms). */
  at: number;
}

/** The store's side: one value holding every kind's record (channel-state `warm`, key `fallbacks`). */
export interface WarmMemory {
  load(): Promise<Record<AgentKind, Remembered>>;
  save(all: Record<AgentKind, Remembered>): Promise<void>;
}

/** The control method `agentwire agent warm-reset` calls on a running relay. */
export const WARM_RESET_METHOD = 'warm.reset';

/** The channel-state namespace and key the records live under. */
export const WARM_STATE = { channel: 'warm', key: 'fallbacks' } as const;

/** A key-value store as the store's channel state offers it. */
export function warmMemory(state: {
  get<T>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown): Promise<void>;
}): WarmMemory {
  return {
    load: async () => (await state.get<Record<AgentKind, Remembered>>(WARM_STATE.key)) ?? {},
    save: (all) => state.set(WARM_STATE.key, Object.keys(all).length > 0 ? all : undefined),
  };
}

/** The program's file, as the start would find it on the environment's PATH. */
function programStamp(program: string | undefined, path: string | undefined): string {
  if (!program) return '';
  const dirs = isAbsolute(program) || program.includes('/') ? [''] : (path ?? '').split(delimiter);
  for (const d of dirs) {
    try {
      const st = statSync(d ? join(d, program) : program);
      if (st.isFile()) return `${st.size}:${Math.round(st.mtimeMs)}`;
    } catch {
      // not in this folder
    }
  }
  return 'missing';
}

/**
 * What was started, as a short hash: the command, the environment's names (never its values:
 * they may be secrets) and the program file's size and time, which an upgrade changes.
 */
export function startFingerprint(command: readonly string[], env: Readonly<Record<string, string>>): string {
  const names = Object.keys(env).sort();
  const stamp = programStamp(command[0], env.PATH);
  return createHash('sha256')
    .update(JSON.stringify([command, names, stamp]))
    .digest('hex')
    .slice(0, 16);
}
