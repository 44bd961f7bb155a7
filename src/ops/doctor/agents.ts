// Each configured agent CLI: found (on PATH, or at agent.command[0]), and its version probe (the
// spec's versionArgs, `--version` for the five) answers. Install hints come from the spec too.
import { accessSync, constants, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { agentIds, resolveAgentId } from '../../agents/named.js';
import type { AgentSettings } from '../../agents/resolve.js';
import type { AgentKind } from '../../agents/types.js';
import type { Paths } from '../../config/paths.js';
import type { Config } from '../../config/schema.js';
import { scrub } from '../../log.js';
import type { Probe } from './probe.js';
import { type Finding, fail, ok } from './types.js';

/** Which setting chose the command, for messages: the same precedence resolveAgent applies. */
function commandKey(config: Config, kind: AgentKind): string {
  const named = config.agents.list.findIndex((a) => a.name === kind);
  if (named >= 0) return config.agents.list[named]?.command ? `agents.list.${named}.command` : '';
  if (config.agents[kind]?.command) return `agents.${kind}.command`;
  if (kind === config.agent.kind && config.agent.command) return 'agent.command';
  return '';
}

/** Where `program` resolves: itself when it has a slash, else the first executable on PATH. */
export function findProgram(program: string, pathVar: string, cwd: string): string | undefined {
  if (program.includes('/')) {
    const full = isAbsolute(program) ? program : resolve(cwd, program);
    return executable(full) ? full : undefined;
  }
  for (const dir of pathVar.split(delimiter)) {
    if (!dir) continue;
    const full = join(dir, program);
    if (executable(full)) return full;
  }
  return undefined;
}

export async function checkAgents(
  config: Config,
  paths: Paths,
  env: NodeJS.ProcessEnv,
  probe: Probe,
  timeoutMs: number,
): Promise<Finding[]> {
  const out: Finding[] = [];
  // Every agent a chat may run: the configured kinds and each named agent (agents/named.ts).
  for (const kind of agentIds(config)) {
    const check = `agent:${kind}`;
    let agent: AgentSettings;
    try {
      // Exactly the command and environment the relay would run it with.
      agent = resolveAgentId(config, paths, kind, { env, createDirs: false });
    } catch (err) {
      out.push(
        fail(
          check,
          `its settings are not usable: ${(err as Error).message}`,
          `fix agents.${kind} / agent in the config`,
        ),
      );
      continue;
    }
    const key = commandKey(config, kind);
    const program = agent.command[0] as string;
    // A relative command is resolved from the agent's working folder, as the spawn will.
    const where = findProgram(program, agent.env.PATH ?? '', agent.cwd);
    const setting = key ? `${key} names` : 'the default program is';
    const named = config.agents.list.findIndex((a) => a.name === kind);
    const fixKey =
      key ||
      (named >= 0
        ? `agents.list.${named}.command`
        : kind === config.agent.kind
          ? 'agent.command'
          : `agents.${kind}.command`);
    const install = agent.spec.install.hint;
    if (!where) {
      out.push(
        fail(
          check,
          program.includes('/')
            ? `${setting} ${program}, which is not an executable file`
            : `\`${program}\` is not on PATH (${setting} ${program})`,
          `${install} (see ${agent.spec.docsUrl}), or point ${fixKey} at the program`,
        ),
      );
      continue;
    }
    if (agent.spec.warmOnly) {
      // An agent with no one-shot mode (any ACP agent): its argv may carry its own flags, and it has no
      // common version flag (versionArgs is empty).
      out.push(
        ok(
          check,
          `found (${[where, ...agent.command.slice(1)].join(' ')}; warm only, started on the first message)`,
        ),
      );
      continue;
    }
    const versionArgs = agent.spec.versionArgs;
    const probeText = versionArgs.join(' ');
    const r = await probe([where, ...agent.command.slice(1), ...versionArgs], {
      env: agent.env,
      cwd: tmpdir(),
      timeoutMs,
    });
    const shown = [where, ...agent.command.slice(1)].join(' ');
    if (r.type === 'exited' && r.code === 0) {
      const version = firstLine(r.stdout) || firstLine(r.stderr) || 'version unknown';
      out.push(ok(check, `${version} (${shown})`));
    } else if (r.type === 'timeout') {
      out.push(
        fail(
          check,
          `${shown} ${probeText} did not finish within ${Math.round(timeoutMs / 1000)}s`,
          `run \`${shown} ${probeText}\` yourself and see where it stops (a first-run prompt, a login, a network wait)`,
        ),
      );
    } else {
      const why =
        r.type === 'spawn_error'
          ? `could not be started (${r.code})`
          : `exited with ${r.code ?? r.signal}${firstLine(r.stderr) ? `: ${firstLine(r.stderr)}` : ''}`;
      out.push(
        fail(
          check,
          `${shown} ${probeText} ${why}`,
          `run \`${shown} ${probeText}\` yourself; reinstall with ${install}`,
        ),
      );
    }
  }
  return out;
}

/** What a CLI prints is untrusted: one line, secrets scrubbed, control characters out, short. */
function firstLine(text: string): string {
  const line = text.split('\n').find((l) => l.trim()) ?? '';
  const clean = scrub(line.replace(/[\u0000-\u001f\u007f]/g, '').trim());
  return clean.length > 120 ? `${clean.slice(0, 119)}…` : clean;
}

function executable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
