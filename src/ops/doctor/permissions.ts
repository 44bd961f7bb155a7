// The state folder holds WhatsApp credentials (in the database), messages, media, the console token
// and logs: folders must be 0700 and files 0600, owned by the user the relay runs as. The config
// file only matters when it holds a secret written out literally (not as "${VAR}").
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { channelSecrets } from '../../channels/registry.js';
import type { Paths } from '../../config/paths.js';
import { agentOverrides, type Config } from '../../config/schema.js';
import { shellQuote } from '../service/launchd.js';
import { type Finding, fail, ok, warn } from './types.js';

const CHECK = 'permissions';

/** Folders and files under the state folder that must be private, those that exist. */
export function privatePaths(
  paths: Paths,
  storeFiles: readonly string[],
): { dirs: string[]; files: string[] } {
  const dirs = [
    paths.home,
    paths.logs,
    dirname(paths.inboundMedia),
    paths.inboundMedia,
    paths.stagedMedia,
    paths.agentState,
  ];
  // The store's own files on this machine are the engine's to name (store/admin.ts localFiles).
  const files = [...storeFiles, paths.lock];
  for (const dir of [paths.home, paths.logs]) {
    for (const name of list(dir)) {
      const full = join(dir, name);
      // The config file is judged on its own below: it only matters when it holds a secret.
      if (!files.includes(full) && full !== paths.configFile && isFile(full)) files.push(full);
    }
  }
  const kept = files.filter(isFile);
  // Whoever can connect to the control socket can drive the relay; the tools socket acts for runs.
  for (const sock of [paths.socket, paths.toolsSocket]) if (existsSync(sock)) kept.push(sock);
  return { dirs: dirs.filter((d) => existsSync(d)), files: kept };
}

export function checkPermissions(
  paths: Paths,
  storeFiles: readonly string[],
  config: Config | undefined,
  platform: NodeJS.Platform,
  uid: number | undefined,
): Finding[] {
  if (platform === 'win32') return [ok(CHECK, 'not checked on Windows (no POSIX modes)')];
  if (!existsSync(paths.home))
    return [ok(CHECK, `${paths.home} does not exist yet; the relay creates it private`)];
  const { dirs, files } = privatePaths(paths, storeFiles);
  const out: Finding[] = [];
  for (const d of dirs) out.push(...checkOne(d, 0o700, uid));
  for (const f of files) out.push(...checkOne(f, 0o600, uid));
  if (config && secretInConfigFile(paths.configFile, config))
    out.push(...checkOne(paths.configFile, 0o600, uid));
  if (out.length === 0)
    out.push(ok(CHECK, `state folder ${paths.home} and its ${files.length} files are private (0700/0600)`));
  return out;
}

function checkOne(path: string, want: 0o700 | 0o600, uid: number | undefined): Finding[] {
  const st = statSync(path);
  const out: Finding[] = [];
  const mode = st.mode & 0o777;
  if (mode & 0o077) {
    const what = want === 0o700 ? 'folder' : 'file';
    out.push(
      fail(
        CHECK,
        `${path} is readable by other users (mode ${mode.toString(8).padStart(4, '0')}); this ${what} holds credentials or messages`,
        `chmod ${want.toString(8)} ${shellQuote(path)}`,
      ),
    );
  }
  if (uid !== undefined && st.uid !== uid)
    out.push(
      warn(
        CHECK,
        `${path} belongs to uid ${st.uid}, not to the user running this (uid ${uid}); the relay may not be able to use it`,
        `chown $(id -un) ${shellQuote(path)}, or run agentwire as the owner`,
      ),
    );
  return out;
}

/** True when a secret value of the config appears written out in the config file itself. */
function secretInConfigFile(file: string, config: Config): boolean {
  const values = [
    ...channelSecrets(config, {}),
    ...Object.values(config.agent.env),
    ...agentOverrides(config.agents).flatMap((a) => Object.values(a?.env ?? {})),
  ].filter((v): v is string => typeof v === 'string' && v.length >= 6);
  if (values.length === 0 || !isFile(file)) return false;
  const text = readFileSync(file, 'utf8');
  return values.some((v) => text.includes(v));
}

function list(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
