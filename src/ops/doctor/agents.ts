// Each configured agent CLI: found (on PATH, or at agent.command[0]), and `--version` answers.
import { accessSync, constants, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { getSpec } from '../../agents/registry.js';
import type { AgentKind } from '../../agents/types.js';
import type { Config } from '../../config/schema.js';
import { scrub } from '../../log.js';
import type { Probe } from './probe.js';
import { type Finding, fail, ok } from './types.js';

/** The npm package that installs each kind's CLI, for the fix text. */
export const AGENT_INSTALL: Record<AgentKind, string> = {
  claude: 'npm install -g @anthropic-ai/claude-code',
  codex: 'npm install -g @openai/codex',
  pi: 'npm install -g @mariozechner/pi-coding-agent',
  opencode: 'npm install -g opencode-ai',
  gemini: 'npm install -g @google/gemini-cli',
};

/** The kinds the config may run: the default agent and every kind with its own settings. */
export function configuredAgents(config: Config): { kind: AgentKind; command: string[]; key: string }[] {
  const kinds = new Set<AgentKind>([config.agent.kind as AgentKind]);
  for (const [k, v] of Object.entries(config.agents)) if (v) kinds.add(k as AgentKind);
  return [...kinds].map((kind) => {
    const own = kind === config.agent.kind ? config.agent.command : undefined;
    const command = own ?? config.agents[kind]?.command ?? [getSpec(kind).program];
    const key = own ? 'agent.command' : config.agents[kind]?.command ? `agents.${kind}.command` : '';
    return { kind, command, key };
  });
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
  env: NodeJS.ProcessEnv,
  probe: Probe,
  timeoutMs: number,
): Promise<Finding[]> {
  const out: Finding[] = [];
  for (const a of configuredAgents(config)) {
    const check = `agent:${a.kind}`;
    const program = a.command[0] as string;
    const where = findProgram(program, env.PATH ?? '', process.cwd());
    const setting = a.key ? `${a.key} names` : 'the default program is';
    if (!where) {
      out.push(
        fail(
          check,
          program.includes('/')
            ? `${setting} ${program}, which is not an executable file`
            : `\`${program}\` is not on PATH (${setting} ${program})`,
          `${AGENT_INSTALL[a.kind]}, or point ${a.key || (a.kind === config.agent.kind ? 'agent.command' : `agents.${a.kind}.command`)} at the program`,
        ),
      );
      continue;
    }
    const r = await probe([where, ...a.command.slice(1), '--version'], {
      env: probeEnv(env),
      cwd: tmpdir(),
      timeoutMs,
    });
    const shown = [where, ...a.command.slice(1)].join(' ');
    if (r.type === 'exited' && r.code === 0) {
      const version = firstLine(r.stdout) || firstLine(r.stderr) || 'version unknown';
      out.push(ok(check, `${version} (${shown})`));
    } else if (r.type === 'timeout') {
      out.push(
        fail(
          check,
          `${shown} --version did not finish within ${Math.round(timeoutMs / 1000)}s`,
          `run \`${shown} --version\` yourself and see where it stops (a first-run prompt, a login, a network wait)`,
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
          `${shown} --version ${why}`,
          `run \`${shown} --version\` yourself; reinstall with ${AGENT_INSTALL[a.kind]}`,
        ),
      );
    }
  }
  return out;
}

/** A small explicit environment, as the relay gives agents: not every variable of this shell. */
function probeEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of ['PATH', 'HOME', 'LANG', 'USER', 'TMPDIR']) {
    const v = env[k];
    if (v) out[k] = v;
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
