// What a service unit runs: the absolute node binary and the absolute CLI entry, `relay`, plus the
// few environment variables that decide which state folder and config it uses. PATH is captured at
// install time because service managers start with a minimal PATH where `claude`, `codex`… (often in
// ~/.local/bin or an npm prefix) would not be found. Never a secret: units are world-readable.

export interface ServiceSpec {
  nodePath: string;
  mainPath: string;
  /** Extra environment, e.g. AGENTWIRE_HOME, AGENTWIRE_CONFIG, PATH. */
  env: Record<string, string>;
  /** How long the manager waits for a clean stop before killing (relay grace plus margin). */
  stopTimeoutSeconds: number;
  /** launchd only: where stdout/stderr of the process go (crash traces; the JSON log is separate). */
  logDir: string;
}

export const SERVICE_NAME = 'agentwire';
export const LAUNCHD_LABEL = 'dev.agentwire.relay';

/** The variables copied from the installing shell into the unit when they are set. */
export const CARRIED_ENV = ['AGENTWIRE_HOME', 'AGENTWIRE_CONFIG', 'AGENTWIRE_LOG_LEVEL', 'PATH'] as const;

export function serviceEnv(env: NodeJS.ProcessEnv, configFile?: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of CARRIED_ENV) {
    const v = env[k];
    if (v) out[k] = v;
  }
  if (configFile) out.AGENTWIRE_CONFIG = configFile;
  return out;
}
