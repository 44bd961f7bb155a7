import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** Every file location the relay uses, derived once from the environment. */
export interface Paths {
  /** The state folder (`AGENTWIRE_HOME`, default `~/.agentwire`). */
  home: string;
  /** The config file (`--config`, `AGENTWIRE_CONFIG`, default `<home>/agentwire.json5`). */
  configFile: string;
  /** True when the config file was named explicitly (then it must exist). */
  configExplicit: boolean;
  workspace: string;
  inboundMedia: string;
  /** Private copies of outbound files, made when they are checked; what the channels send. */
  stagedMedia: string;
  /** Files served by URL to a channel that fetches them (Twilio's MediaUrl). */
  hostedMedia: string;
  agentState: string;
  logs: string;
  /** Local control socket of a running relay (private permissions): the owner's, never an agent's. */
  socket: string;
  /**
   * The socket the agent tools of the relay's runs call (`tools.call` only, each call checked
   * against its run's token): what a run's environment names instead of the control socket.
   */
  toolsSocket: string;
  /** Held by the one relay process that owns the channels. */
  lock: string;
}

export function resolvePaths(env: NodeJS.ProcessEnv, configOverride?: string): Paths {
  const home = resolve(env.AGENTWIRE_HOME || join(homedir(), '.agentwire'));
  const named = configOverride || env.AGENTWIRE_CONFIG;
  return {
    home,
    configFile: named ? resolve(named) : join(home, 'agentwire.json5'),
    configExplicit: Boolean(named),
    workspace: join(home, 'workspace'),
    inboundMedia: join(home, 'media', 'inbound'),
    stagedMedia: join(home, 'media', 'staged'),
    hostedMedia: join(home, 'media', 'outbound'),
    agentState: join(home, 'agents'),
    logs: join(home, 'logs'),
    socket: join(home, 'relay.sock'),
    toolsSocket: join(home, 'tools.sock'),
    lock: join(home, 'relay.lock'),
  };
}

/**
 * The media folders under `store.sharedFolder` when it is set: a row names a file by its absolute
 * path, and a chat that moves to another process (another machine) reads the row there, so the path
 * must name the same file on every machine.
 */
export function withSharedFolder(paths: Paths, sharedFolder: string | undefined): Paths {
  if (sharedFolder === undefined) return paths;
  const media = join(sharedFolder, 'media');
  return {
    ...paths,
    inboundMedia: join(media, 'inbound'),
    stagedMedia: join(media, 'staged'),
    hostedMedia: join(media, 'outbound'),
  };
}

/** The folder that holds every media folder (the state folder's `media/`, or the shared one's). */
export const mediaRoot = (paths: Pick<Paths, 'inboundMedia'>): string => join(paths.inboundMedia, '..');
