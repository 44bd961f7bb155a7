// Where each CLI keeps its own state (sessions, settings, its provider login), which the sandbox
// binds read-write: without it a CLI forgets its sessions and its login between runs. Pure: from
// the run's environment (the variables each CLI reads to move it) to paths.
import { dirname, join } from 'node:path';
import type { AgentKind } from './types.js';

export interface CliState {
  /** Folders the CLI writes (made 0700 before binding when missing). */
  dirs: string[];
  /** Single files it keeps beside them, bound when they exist (claude's ~/.claude.json). */
  files: string[];
  /** Files it only reads, named by the environment (a credentials file). */
  readFiles: string[];
}

type Env = Readonly<Record<string, string | undefined>>;

const xdg = (env: Env, home: string, name: string, fallback: string): string =>
  env[name] || join(home, fallback);

const TABLE: Record<string, (env: Env, home: string) => CliState> = {
  claude: (env, home) =>
    env.CLAUDE_CONFIG_DIR
      ? { dirs: [env.CLAUDE_CONFIG_DIR], files: [], readFiles: [] }
      : { dirs: [join(home, '.claude')], files: [join(home, '.claude.json')], readFiles: [] },
  codex: (env, home) => ({ dirs: [env.CODEX_HOME || join(home, '.codex')], files: [], readFiles: [] }),
  gemini: (env, home) => ({
    dirs: [join(home, '.gemini')],
    files: [],
    readFiles: env.GOOGLE_APPLICATION_CREDENTIALS ? [env.GOOGLE_APPLICATION_CREDENTIALS] : [],
  }),
  opencode: (env, home) => ({
    dirs: [
      join(xdg(env, home, 'XDG_DATA_HOME', '.local/share'), 'opencode'),
      join(xdg(env, home, 'XDG_CONFIG_HOME', '.config'), 'opencode'),
      join(xdg(env, home, 'XDG_STATE_HOME', '.local/state'), 'opencode'),
      join(xdg(env, home, 'XDG_CACHE_HOME', '.cache'), 'opencode'),
      ...(env.OPENCODE_CONFIG_DIR ? [env.OPENCODE_CONFIG_DIR] : []),
    ],
    files: [],
    readFiles: env.OPENCODE_CONFIG ? [env.OPENCODE_CONFIG] : [],
  }),
  pi: (env, home) => ({
    dirs: [env.PI_CODING_AGENT_DIR || join(home, '.pi')],
    files: [],
    readFiles: [],
  }),
};

/** The CLI's state; an ACP agent's is unknown, so it keeps nothing past its run but its workspace. */
export function cliState(kind: AgentKind, env: Env): CliState {
  const home = env.HOME;
  const row = TABLE[kind];
  if (!home || !row) return { dirs: [], files: [], readFiles: [] };
  return row(env, home);
}

/** The folders that must exist for `s` to be bound: its dirs, and the folders of its files. */
export const stateFolders = (s: CliState): string[] => [...s.dirs, ...s.files.map((f) => dirname(f))];
