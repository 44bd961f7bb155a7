// Where a CLI keeps its own state (sessions, settings, its provider login), which the sandbox binds
// read-write: without it a CLI forgets its sessions and its login between runs. Each spec says
// where (`AgentSpec.state`, from the run's environment: the variables each CLI reads to move it).
import { dirname } from 'node:path';
import { getSpec } from './registry.js';
import type { AgentKind, AgentSpec, CliState } from './types.js';

export type { CliState };

const NONE: CliState = { dirs: [], files: [], readFiles: [] };

/** The CLI's state; an ACP agent's is unknown, so it keeps nothing past its run but its workspace. */
export function cliState(kind: AgentKind, env: Readonly<Record<string, string | undefined>>): CliState {
  const home = env.HOME;
  if (!home) return NONE;
  let state: AgentSpec['state'];
  try {
    state = getSpec(kind).state;
  } catch {
    return NONE; // not a registered kind
  }
  return state ? state(env, home) : NONE;
}

/** The folders that must exist for `s` to be bound: its dirs, and the folders of its files. */
export const stateFolders = (s: CliState): string[] => [...s.dirs, ...s.files.map((f) => dirname(f))];
