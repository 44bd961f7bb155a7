// Settings that are allowed but open a door wide: `config check` prints each, and the relay logs
// each at start. Pure.
import type { Config } from './schema.js';

export interface ConfigWarning {
  path: string;
  message: string;
}

/** Channel sections with a `dm` key, whatever the channel (channels/plugin.ts names them). */
function sections(config: Config): [string, { dm?: string; allowFrom?: unknown; enabled?: boolean }][] {
  return Object.entries(config as unknown as Record<string, unknown>).flatMap(([name, v]) =>
    v && typeof v === 'object' && 'dm' in v ? [[name, v as { dm?: string; allowFrom?: unknown }]] : [],
  );
}

export function configWarnings(config: Config): ConfigWarning[] {
  const out: ConfigWarning[] = [];
  for (const [name, s] of sections(config)) {
    if (s.enabled === false) continue;
    if (s.dm === 'everyone')
      out.push({
        path: `${name}.dm`,
        message:
          "is 'everyone': anyone who finds this number or account can talk to the agent (as a guest: access.guestCommands, and the guest profile's permissions)",
      });
    else if (
      s.dm !== 'none' &&
      (s.allowFrom === '*' || (Array.isArray(s.allowFrom) && s.allowFrom.includes('*')))
    )
      out.push({
        path: `${name}.allowFrom`,
        message:
          "lets anyone in as a member: say dm: 'everyone' to let strangers in as guests instead, or list the numbers",
      });
  }
  return out;
}
