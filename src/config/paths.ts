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
    agentState: join(home, 'agents'),
    logs: join(home, 'logs'),
    socket: join(home, 'relay.sock'),
    toolsSocket: join(home, 'tools.sock'),
    lock: join(home, 'relay.lock'),
  };
}
