import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getSpec } from '../../src/agents/registry.js';
import { agentRequest, buildAgentEnv, newSession, resolveAgent } from '../../src/agents/resolve.js';
import { resolvePaths } from '../../src/config/paths.js';
import { type Config, configSchema } from '../../src/config/schema.js';
import { tempDir } from '../helpers/tmp.js';

const home = tempDir('aw-resolve-');
const paths = resolvePaths({ AGENTWIRE_HOME: home });
const cfg = (raw: unknown): Config => configSchema.parse(raw);
const env = {
  PATH: '/bin',
  HOME: '/home/me',
  OPENAI_API_KEY: 'sk-test',
  AWS_SECRET: 'nope',
  CLAUDECODE: '1',
};

describe('resolveAgent', () => {
  it('defaults to claude on PATH in <state>/workspace, created private on first use', () => {
    const a = resolveAgent(cfg({}), paths, undefined, { env });
    expect(a).toMatchObject({
      kind: 'claude',
      command: ['claude'],
      cwd: join(home, 'workspace'),
      timeoutMs: 600_000,
      stateDir: join(home, 'agents', 'claude'),
      warnings: [],
    });
    expect(statSync(a.cwd).mode & 0o777).toBe(0o700);
    expect(statSync(a.stateDir).isDirectory()).toBe(true);
  });

  it('layers agents.<kind> over agent, and agent-only keys apply to its own kind', () => {
    const config = cfg({
      agent: {
        kind: 'claude',
        model: 'sonnet',
        timeoutSeconds: 100,
        env: { A: '1' },
        systemText: 'be brief',
      },
      agents: {
        codex: { model: 'gpt-5.5', thinking: 'high', env: { B: '2' }, command: ['/opt/codex', '--x'] },
      },
    });
    const claude = resolveAgent(config, paths, 'claude', { env, createDirs: false });
    expect(claude).toMatchObject({ model: 'sonnet', timeoutMs: 100_000, systemText: 'be brief' });
    const codex = resolveAgent(config, paths, 'codex', { env, createDirs: false });
    expect(codex).toMatchObject({
      command: ['/opt/codex', '--x'],
      model: 'gpt-5.5',
      thinking: 'high',
      timeoutMs: 100_000,
      systemText: 'be brief',
    });
    expect(codex.env).toMatchObject({ A: '1', B: '2' });
    expect(resolveAgent(config, paths, 'pi', { env, createDirs: false }).model).toBeUndefined();
  });

  it('resolves a relative cwd against the config file folder', () => {
    const a = resolveAgent(cfg({ agent: { cwd: 'projects/site' } }), paths, undefined, {
      env,
      createDirs: false,
    });
    expect(a.cwd).toBe(join(home, 'projects', 'site'));
  });

  it('drops a thinking level the CLI does not know, with a warning', () => {
    const a = resolveAgent(cfg({ agent: { kind: 'gemini', thinking: 'high' } }), paths, undefined, {
      env,
      createDirs: false,
    });
    expect(a.thinking).toBeUndefined();
    expect(a.warnings[0]).toContain('gemini');
  });

  it('refuses a model name that could be read as a flag', () => {
    expect(() =>
      resolveAgent(cfg({ agent: { model: '--yolo' } }), paths, undefined, { env, createDirs: false }),
    ).toThrow(/invalid/);
  });
});

describe('buildAgentEnv', () => {
  it('passes the base names and the spec names only, then config env', () => {
    const e = buildAgentEnv(getSpec('codex'), { EXTRA: 'x' }, env);
    expect(e).toEqual({
      PATH: '/bin',
      HOME: '/home/me',
      OPENAI_API_KEY: 'sk-test',
      NO_COLOR: '1',
      EXTRA: 'x',
    });
  });

  it('gives a PATH even when the relay has none, and lets config env override', () => {
    const e = buildAgentEnv(getSpec('claude'), { NO_COLOR: '0' }, {});
    expect(e.PATH).toContain('/usr/bin');
    expect(e.NO_COLOR).toBe('0');
  });
});

describe('sessions and requests', () => {
  it('lets the relay choose ids only where the CLI accepts them', () => {
    expect(newSession(getSpec('claude'))).toMatchObject({
      type: 'new',
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(newSession(getSpec('gemini')).id).toBeDefined();
    expect(newSession(getSpec('codex'))).toEqual({ type: 'new' });
    expect(newSession(getSpec('opencode'))).toEqual({ type: 'new' });
    expect(newSession(getSpec('pi'))).toEqual({ type: 'new' });
  });

  it('builds a request carrying every resolved setting', () => {
    const a = resolveAgent(cfg({ agent: { kind: 'pi', model: 'm', thinking: 'low' } }), paths, undefined, {
      env,
      createDirs: false,
    });
    const r = agentRequest(a, 'hi', { type: 'new' });
    expect(r).toMatchObject({ prompt: 'hi', model: 'm', thinking: 'low', cwd: a.cwd, stateDir: a.stateDir });
    expect(getSpec('pi').build(r).argv).toEqual(
      expect.arrayContaining(['--model', 'm', '--thinking', 'low', '--session']),
    );
  });
});
