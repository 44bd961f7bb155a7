// What each agent's sandbox shows, from what makeSandbox found: sandboxPlan and withToolsIn as
// tables, cliState per CLI, installOf on real folders, and resolveAgent's `sandbox` setting.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveAgent } from '../../src/agents/resolve.js';
import {
  findBwrap,
  installOf,
  makeSandbox,
  type SandboxInputs,
  sandboxPlan,
  withToolsIn,
} from '../../src/agents/sandbox-plan.js';
import { cliState } from '../../src/agents/sandbox-state.js';
import { resolvePaths } from '../../src/config/paths.js';
import { configSchema } from '../../src/config/schema.js';
import { tempDir } from '../helpers/tmp.js';

const inputs: SandboxInputs = {
  kind: 'codex',
  bwrap: '/usr/bin/bwrap',
  cwd: '/home/u/.agentwire/workspace',
  env: { HOME: '/home/u', PATH: '/usr/bin:/home/u/.npm/bin' },
  stateDir: '/home/u/.agentwire/agents/codex',
  root: { '/bin': 'usr/bin', '/lib': 'usr/lib', '/lib64': 'dir' },
  installs: ['/home/u/.npm/lib/node_modules', '/usr'],
  pathDirs: ['/usr/bin', '/home/u/.npm/bin', '/home/u'],
  hidden: ['/home/u/.agentwire', '/home/u/.agentwire/agentwire.json5'],
};

describe('sandboxPlan', () => {
  it('binds the workspace, the CLI state and agentwire state read-write, HOME private', () => {
    const p = sandboxPlan(inputs);
    expect(p.rw).toEqual([
      '/home/u/.agentwire/workspace',
      '/home/u/.codex',
      '/home/u/.agentwire/agents/codex',
    ]);
    // /usr covers the installs and PATH folders under it; HOME (which holds the state folder) is never bound.
    expect(p.ro).toEqual(['/usr', '/lib64', '/home/u/.npm/lib/node_modules', '/home/u/.npm/bin']);
    // No chat's received files: those are one chat's, added per run (withChatMedia).
    expect(p.ro.some((r) => r.includes('media'))).toBe(false);
    expect(p.links).toEqual([
      { path: '/bin', target: 'usr/bin' },
      { path: '/lib', target: 'usr/lib' },
    ]);
    // Other runs' tool files (their tokens) are under an empty folder.
    expect(p.tmpfs).toEqual(['/home/u', '/home/u/.agentwire/agents/codex/tool-runs']);
    expect(p.roTry).toContain('/etc/resolv.conf');
    expect(p.roTry).toContain('/etc/ssl');
    expect(p.roTry.some((f) => f.includes('shadow'))).toBe(false);
    expect(p.hidden).toEqual(inputs.hidden);
    expect(p.setEnv).toEqual({ TMPDIR: '/tmp' });
  });

  it('keeps HOME as it is when HOME is the workspace', () => {
    const p = sandboxPlan({ ...inputs, env: { HOME: '/w' }, cwd: '/w' });
    expect(p.tmpfs).toEqual(['/home/u/.agentwire/agents/codex/tool-runs']);
  });

  it('adds the tools: installs not yet shown, the tools socket and the run files, read-only', () => {
    const p = withToolsIn(
      sandboxPlan(inputs),
      { env: { AGENTWIRE_TOOLS_SOCKET: '/home/u/.agentwire/tools.sock', AGENTWIRE_TOOLS_TOKEN: 't' } },
      ['/usr', '/opt/agentwire'],
      ['/home/u/.agentwire/agents/codex/tool-runs/r1.mcp.json'],
    );
    expect(p.ro.slice(-3)).toEqual([
      '/opt/agentwire',
      '/home/u/.agentwire/tools.sock',
      '/home/u/.agentwire/agents/codex/tool-runs/r1.mcp.json',
    ]);
    expect(p.ro.filter((r) => r === '/usr')).toHaveLength(1);
  });
});

describe('cliState', () => {
  it.each([
    ['claude', { HOME: '/h' }, ['/h/.claude'], ['/h/.claude.json']],
    ['claude', { HOME: '/h', CLAUDE_CONFIG_DIR: '/c' }, ['/c'], []],
    ['codex', { HOME: '/h', CODEX_HOME: '/x' }, ['/x'], []],
    ['gemini', { HOME: '/h' }, ['/h/.gemini'], []],
    ['pi', { HOME: '/h' }, ['/h/.pi'], []],
    ['pi', { HOME: '/h', PI_CODING_AGENT_DIR: '/p' }, ['/p'], []],
    [
      'opencode',
      { HOME: '/h', XDG_DATA_HOME: '/d' },
      ['/d/opencode', '/h/.config/opencode', '/h/.local/state/opencode', '/h/.cache/opencode'],
      [],
    ],
    ['acp', { HOME: '/h' }, [], []],
    ['claude', {}, [], []],
  ])('%s with %j', (kind, env, dirs, files) => {
    const s = cliState(kind, env);
    expect(s.dirs).toEqual(dirs);
    expect(s.files).toEqual(files);
  });
});

describe('makeSandbox', () => {
  it.skipIf(!findBwrap(process.env.PATH))(
    'refuses a working folder that is a link to the state folder (bwrap would bind what it leads to)',
    () => {
      const d = tempDir('aw-sb-link-');
      const state = join(d, 'state');
      mkdirSync(state);
      symlinkSync(state, join(d, 'work'));
      const made = makeSandbox('codex', {
        cwd: join(d, 'work'),
        env: { HOME: join(d, 'home'), PATH: '/usr/bin:/bin' },
        stateDir: join(d, 'agents', 'codex'),
        command: ['codex'],
        hidden: [state],
      });
      expect(made.ok).toBe(false);
      expect(!made.ok && made.error).toMatch(/would show .*work \(really .*state\), which holds/);
    },
  );
});

describe('installOf', () => {
  it('is the outermost node_modules of an npm-installed CLI, else the package folder', () => {
    const d = tempDir('aw-install-');
    const pkg = join(d, 'p', 'node_modules', '@s', 'cli');
    mkdirSync(join(pkg, 'node_modules', 'dep'), { recursive: true });
    writeFileSync(join(pkg, 'cli.js'), '');
    mkdirSync(join(d, 'bin'));
    symlinkSync(join(pkg, 'cli.js'), join(d, 'bin', 'cli'));
    expect(installOf(join(d, 'bin', 'cli'))).toBe(join(d, 'p', 'node_modules'));

    const app = join(d, 'app');
    mkdirSync(join(app, 'dist', 'cli'), { recursive: true });
    writeFileSync(join(app, 'package.json'), '{}');
    writeFileSync(join(app, 'dist', 'cli', 'bin.js'), '');
    expect(installOf(join(app, 'dist', 'cli', 'bin.js'))).toBe(app);
  });
});

describe('resolveAgent: sandbox', () => {
  const config = (o: object) => configSchema.parse(o);
  const dir = tempDir('aw-resolve-sb-');
  const paths = resolvePaths({ AGENTWIRE_HOME: join(dir, 'state') });
  const env = { HOME: join(dir, 'home'), PATH: '/usr/bin:/bin' };

  it.each([
    [{}, 'claude', undefined],
    [{ agent: { sandbox: 'none' } }, 'claude', undefined],
    [{ agent: { sandbox: 'bwrap' } }, 'codex', 'set'],
    [{ agent: { sandbox: 'bwrap' }, agents: { codex: { sandbox: 'none' } } }, 'codex', undefined],
    [{ agents: { codex: { sandbox: 'bwrap' } } }, 'codex', 'set'],
    [{ agents: { codex: { sandbox: 'bwrap' } } }, 'claude', undefined],
  ])('%j for %s', (o, kind, want) => {
    const a = resolveAgent(config(o), paths, kind, { env });
    expect(a.sandbox === undefined ? undefined : 'set').toBe(want);
  });

  it('says bwrap is missing when it is not on PATH nor in the usual places; never drops the sandbox', () => {
    const a = resolveAgent(config({ agent: { sandbox: 'bwrap' } }), paths, 'claude', {
      env: { ...env, PATH: '/nowhere' },
    });
    // On a machine with bwrap in /usr/bin the plan is made; without, the error names the package.
    if (a.sandbox?.type === 'unavailable') expect(a.sandbox.error).toMatch(/apt-get install bubblewrap/);
    else expect(a.sandbox?.type).toBe('bwrap');
  });

  it('refuses a config value other than none or bwrap', () => {
    expect(() => config({ agent: { sandbox: 'docker' } })).toThrow();
  });
});
