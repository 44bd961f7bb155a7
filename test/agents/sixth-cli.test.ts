// "Adding a CLI means one spec file and one registry line" (src/agents/registry.ts), proven: a fake
// sixth CLI (test/agents/sixth-cli/parrot-spec.ts, a real child process parrot.mjs) is added to the
// registry's list exactly as a new spec would be, and nothing else changes. Config validation,
// doctor, `agentwire agent`, /agent, /status and a chat run then all take it.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { register as registerAgent } from '../../src/cli/agent.js';
import { ExitError, loadContext } from '../../src/cli/context.js';
import { checkAgents } from '../../src/ops/doctor/agents.js';
import { checkConfig } from '../../src/ops/doctor/config.js';
import { probeCommand } from '../../src/ops/doctor/probe.js';
import { agentResolver } from '../../src/queue/adapters.js';
import { harness } from '../queue/helpers.js';

vi.mock('../../src/agents/registry.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/agents/registry.js')>();
  const { parrotSpec } = await import('./sixth-cli/parrot-spec.js');
  // The one line a new CLI adds: its spec in the list. Everything else derives from the list.
  const SPECS = [...real.SPECS, parrotSpec];
  return { ...real, SPECS, ...real.registryOf(SPECS) };
});

const home = mkdtempSync(join(tmpdir(), 'aw-sixth-cli-'));
const bin = join(home, 'bin');
mkdirSync(bin);
const script = new URL('./sixth-cli/parrot.mjs', import.meta.url).pathname;
// `parrot` on PATH, as `npm install -g parrot-cli` would leave it.
writeFileSync(join(bin, 'parrot'), `#!/bin/sh\nexec '${process.execPath}' '${script}' "$@"\n`);
chmodSync(join(bin, 'parrot'), 0o755);

const configFile = join(home, 'agentwire.json5');
const env = { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`, HOME: home, AGENTWIRE_HOME: home };

/** Writes the config; agents.parrot sets a nested-agent variable the runner must strip. */
function writeConfig(body: string): void {
  writeFileSync(configFile, body);
}
const PARROT_CONFIG = `{
  agent: {kind: "parrot", env: {PARROT_NESTED: "leaked"}},
  agents: {codex: {}},
  whatsapp: {enabled: false},
}`;

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('a sixth CLI added by its spec and one registry line', () => {
  it('passes config validation, and an unknown kind still fails naming it', () => {
    writeConfig(PARROT_CONFIG);
    const ctx = loadContext({ config: configFile }, env);
    expect(ctx.config.agent.kind).toBe('parrot');

    writeConfig('{agent: {kind: "parot"}}');
    expect(() => loadContext({ config: configFile }, env)).toThrow(ExitError);
    try {
      loadContext({ config: configFile }, env);
    } catch (err) {
      expect((err as Error).message).toContain('unknown agent kind "parot"; did you mean parrot?');
      expect((err as Error).message).toContain('acp, parrot)');
    }
  });

  it('is checked by doctor: found on PATH, version probed, install hint from the spec', async () => {
    writeConfig(PARROT_CONFIG);
    const { config, paths } = loadContext({ config: configFile }, env);
    expect(checkConfig(paths, env).finding.status).toBe('ok');

    const found = await checkAgents(config, paths, env, probeCommand, 10_000);
    expect(found.find((f) => f.check === 'agent:parrot')).toMatchObject({
      status: 'ok',
      message: expect.stringContaining('parrot 1.2.3'),
    });

    const noPath = { ...env, PATH: '/nonexistent' };
    const missing = await checkAgents(config, paths, noPath, probeCommand, 10_000);
    expect(missing.find((f) => f.check === 'agent:parrot')).toMatchObject({
      status: 'fail',
      fix: 'npm install -g parrot-cli (see https://parrot.example/docs), or point agent.command at the program',
    });
  });

  it('runs through `agentwire agent argv` and `agentwire agent run`', async () => {
    writeConfig(PARROT_CONFIG);
    for (const [k, v] of Object.entries(env)) vi.stubEnv(k, v);
    const out: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      out.push(String(chunk));
      return true;
    });
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const cli = async (...args: string[]) => {
      const program = new Command('agentwire').option('-c, --config <file>').exitOverride();
      registerAgent(program);
      out.length = 0;
      await program.parseAsync(['-c', configFile, 'agent', ...args], { from: 'user' });
      return out.join('');
    };

    const argv = JSON.parse(await cli('argv', '--kind', 'parrot', '--new')) as string[];
    expect(argv.slice(0, 3)).toEqual(['parrot', '--json', '--session-id']);
    expect(argv[3]).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.parse(await cli('argv', '--session', 's-1'))).toEqual([
      'parrot',
      '--json',
      '--resume',
      's-1',
    ]);

    expect(await cli('run', 'hello')).toBe('parrot heard: hello (new, nested unset)\n');
    await expect(cli('argv', '--kind', 'parot')).rejects.toThrow(/unknown agent kind "parot" \(.*, parrot\)/);
  });

  it('is listed and switched to by /agent, shown by /status, and answers a chat', async () => {
    writeConfig(`{agents: {parrot: {env: {PARROT_NESTED: "leaked"}}}, whatsapp: {enabled: false}}`);
    const ctx = loadContext({ config: configFile }, env);
    const resolver = agentResolver(ctx.config, ctx.paths, env, ctx.log);
    const h = harness({ config: { agents: { parrot: {} } }, resolver });
    // Each message is answered before the next is sent; the answer is the last text sent.
    const say = async (text: string) => {
      await h.send(text);
      await h.queue.whenIdle();
      return h.channel.texts().at(-1);
    };
    try {
      expect(await say('/agent')).toBe('This chat uses claude. Configured agents: claude, parrot.');
      expect(await say('/agent parrot')).toBe('This chat now uses parrot.');
      expect(await say('hello')).toBe('parrot heard: hello (new, nested unset)');
      expect(await say('again')).toBe('parrot heard: again (resumed, nested unset)');
      // The spec's display name is what an error says.
      expect(await say('please fail')).toContain("Parrot hit its provider's rate limit");
      expect(await say('/status')).toMatch(/^Agent: parrot/);
    } finally {
      h.cleanup();
    }
  });
});
