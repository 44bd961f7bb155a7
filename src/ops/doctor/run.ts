// Runs every check in order. Config-dependent checks run only on a valid config; the rest (Node,
// permissions, the relay lock) still run, so a broken config does not hide other problems.
import { CHANNELS, channelSecrets } from '../../channels/registry.js';
import type { ChannelState } from '../../channels/types.js';
import type { Paths } from '../../config/paths.js';
import type { Config } from '../../config/schema.js';
import { registerSecret } from '../../log.js';
import type { StoreAdmin } from '../../store/admin.js';
import { checkAgents } from './agents.js';
import { checkConfig } from './config.js';
import { checkConsole } from './console.js';
import { checkNode } from './node.js';
import { checkPermissions } from './permissions.js';
import { type PortState, probePort } from './ports.js';
import type { Probe } from './probe.js';
import { checkRelayLock, type LockState, lockHeld } from './relay-lock.js';
import { checkSandbox } from './sandbox.js';
import { checkStore } from './store.js';
import { checkTwilio } from './twilio.js';
import { type Finding, fail } from './types.js';
import { checkWarmFallbacks } from './warm-fallbacks.js';
import { checkWhatsapp, type LinkState } from './whatsapp.js';
import { checkWhatsappLive } from './whatsapp-live.js';

export interface DoctorDeps {
  paths: Paths;
  env: NodeJS.ProcessEnv;
  nodeVersion: string;
  platform: NodeJS.Platform;
  uid: number | undefined;
  probe: Probe;
  probeTimeoutMs: number;
  readLock: (paths: Paths) => Promise<LockState>;
  /**
   * The store's engine, asked about the store itself (its files, what it holds) without opening it:
   * the one the config names (undefined when the config is invalid: the state folder's SQLite file).
   */
  store: (config: Config | undefined) => Promise<StoreAdmin>;
  /** Whether WhatsApp credentials are in the store (read without starting a socket). */
  linkState: (store: StoreAdmin) => LinkState | Promise<LinkState>;
  portState?: (host: string, port: number) => Promise<PortState>;
  /** The running relay's WhatsApp state (through its control socket), when one runs. */
  liveWhatsapp?: (paths: Paths) => Promise<ChannelState | undefined>;
  now?: () => number;
}

export async function runDoctor(d: DoctorDeps): Promise<Finding[]> {
  const findings: Finding[] = [checkNode(d.nodeVersion)];
  const { finding, config } = checkConfig(d.paths, d.env);
  findings.push(finding);
  const store = await d.store(config);
  findings.push(...checkPermissions(d.paths, store.localFiles(), config, d.platform, d.uid));
  const lock = await d.readLock(d.paths);
  findings.push(checkRelayLock(d.paths, lock));
  if (!config) return findings;
  // Anything a CLI prints back (a version line, an error) is scrubbed of these.
  for (const s of [...channelSecrets(config, d.env), ...Object.values(config.agent.env)]) registerSecret(s);

  findings.push(...(await checkAgents(config, d.paths, d.env, d.probe, d.probeTimeoutMs)));
  findings.push(...(await checkStore(store)));
  findings.push(...(await checkWarmFallbacks(store)));
  findings.push(...(await checkSandbox(config, d.paths, d.env, d.probe, d.probeTimeoutMs)));
  findings.push(checkWhatsapp(config, await d.linkState(store)));
  // While our relay runs it holds these ports itself; probing them would only report it.
  const running = lockHeld(lock);
  if (running && config.whatsapp.enabled && d.liveWhatsapp)
    findings.push(checkWhatsappLive(await d.liveWhatsapp(d.paths), (d.now ?? Date.now)()));
  const port = d.portState ?? probePort;
  const tw = config.twilio;
  const twPort =
    !tw.enabled || tw.mode !== 'webhook'
      ? undefined
      : running
        ? 'relay_running'
        : await port(tw.webhook.host, tw.webhook.port);
  findings.push(...checkTwilio(config, d.env, twPort));
  findings.push(...(await pluginChecks(config, d)));
  const cPort = !config.console.enabled
    ? undefined
    : running
      ? 'relay_running'
      : await port(config.console.host, config.console.port);
  findings.push(...checkConsole(config, cPort));
  return findings;
}

/**
 * The checks each enabled channel brings in its plug-in (e.g. Telegram's `getMe`). A check that
 * throws is a finding, not a crashed doctor.
 */
async function pluginChecks(config: Config, d: DoctorDeps): Promise<Finding[]> {
  const out: Finding[] = [];
  for (const p of CHANNELS) {
    if (!p.doctor || !p.enabled(config)) continue;
    try {
      out.push(
        ...(await p.doctor({
          config,
          paths: d.paths,
          env: d.env,
          online: true,
          timeoutMs: d.probeTimeoutMs,
        })),
      );
    } catch (err) {
      out.push(fail(p.name, `the ${p.displayName} check failed: ${(err as Error).message}`));
    }
  }
  return out;
}
