// How each CLI is given agentwire's MCP server for one run (docs/tools.md): the flags, env and
// per-run files each spec adds, that the token is never in argv, and, through the real runner and a
// real child process, that a run without tools gets exactly the argv `build` made.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { getSpec, SPECS } from '../../src/agents/registry.js';
import { withTools } from '../../src/agents/tool-server.js';
import type { AgentRequest, AgentSpec, BuildContext, ToolServer } from '../../src/agents/types.js';
import { runCommandReply } from '../../src/runner/run-command-reply.js';

const TOKEN = 'abcdefghijkl.SECRETSECRETSECRETSECRETSECRETSECRETSECRET12';
const server: ToolServer = {
  command: '/usr/bin/node',
  args: ['/opt/agentwire/dist/cli/bin.js', 'mcp'],
  env: { AGENTWIRE_TOOLS_TOKEN: TOKEN, AGENTWIRE_TOOLS_SOCKET: '/s/relay.sock' },
  tools: ['send_message', 'chat_info'],
  callTimeoutMs: 660_000,
  toolExtension: '/opt/agentwire/dist/tool-extension-bundle.js',
};
const ctx: BuildContext = {
  prompt: 'hi',
  session: { type: 'new' },
  command: ['/opt/bin/cli'],
  cwd: '/w',
  stateDir: '/state/x',
};
const RUN_DIR = '/state/x/tool-runs/r1';

const wired = (spec: AgentSpec) => {
  const inv = spec.build(ctx);
  const wiring = spec.tools?.(server, (name) => join(RUN_DIR, name));
  return { inv, wiring, merged: wiring ? withTools(inv, server, wiring) : undefined };
};

describe('tool wiring per CLI', () => {
  it('claude: --mcp-config file, --strict-mcp-config, each tool allowed by name, tool search off', () => {
    const { inv, wiring, merged } = wired(getSpec('claude'));
    const file = join(RUN_DIR, 'claude-mcp.json');
    expect(merged?.argv).toEqual([
      ...inv.argv,
      ...['--mcp-config', file, '--strict-mcp-config'],
      ...['--allowedTools', 'mcp__agentwire__send_message,mcp__agentwire__chat_info'],
    ]);
    expect(merged?.env).toMatchObject({ ENABLE_TOOL_SEARCH: 'false', AGENTWIRE_TOOLS_TOKEN: TOKEN });
    expect(wiring?.files?.map((f) => f.path)).toEqual([file]);
    expect(JSON.parse(wiring?.files?.[0]?.content ?? '{}')).toEqual({
      mcpServers: {
        agentwire: {
          type: 'stdio',
          command: server.command,
          args: [...server.args],
          env: server.env,
          // claude's per-server tool-call limit (ms): ask_user may wait as long as the run.
          timeout: 660_000,
        },
      },
    });
  });

  it("claude with the user's own tools configured: the server's rule allows them too (names known only once listed)", () => {
    const spec = getSpec('claude');
    const wiring = spec.tools?.({ ...server, userTools: true }, (name) => join(RUN_DIR, name));
    const at = wiring?.args.indexOf('--allowedTools') ?? -1;
    expect(wiring?.args[at + 1]).toBe(
      'mcp__agentwire__send_message,mcp__agentwire__chat_info,mcp__agentwire',
    );
  });

  it('codex: -c mcp_servers.agentwire.* before the end of options, the token passed by name only', () => {
    const { inv, merged } = wired(getSpec('codex'));
    const end = inv.argv.indexOf('--');
    expect(merged?.argv).toEqual([
      ...inv.argv.slice(0, end),
      ...['-c', 'mcp_servers.agentwire.command="/usr/bin/node"'],
      ...['-c', 'mcp_servers.agentwire.args=["/opt/agentwire/dist/cli/bin.js","mcp"]'],
      ...[
        '-c',
        'mcp_servers.agentwire.env_vars=["AGENTWIRE_TOOLS_TOKEN","AGENTWIRE_TOOLS_SOCKET","AGENTWIRE_TOOLS_TIMEOUT_MS"]',
      ],
      ...['-c', 'mcp_servers.agentwire.default_tools_approval_mode="approve"'],
      // codex's default is 60 s: too short for ask_user.
      ...['-c', 'mcp_servers.agentwire.tool_timeout_sec=660'],
      ...inv.argv.slice(end),
    ]);
    expect(merged?.env).toMatchObject(server.env);
  });

  it('gemini: a per-run system settings file named by GEMINI_CLI_SYSTEM_SETTINGS_PATH, the server trusted', () => {
    const { inv, wiring, merged } = wired(getSpec('gemini'));
    const file = join(RUN_DIR, 'gemini-settings.json');
    expect(merged?.argv).toEqual(inv.argv);
    expect(merged?.env).toMatchObject({ GEMINI_CLI_SYSTEM_SETTINGS_PATH: file });
    expect(JSON.parse(wiring?.files?.[0]?.content ?? '{}')).toEqual({
      mcpServers: {
        agentwire: {
          command: server.command,
          args: [...server.args],
          // gemini hides a tool named ask_user (its own needs its terminal): ours goes by another name.
          env: { ...server.env, AGENTWIRE_TOOLS_RENAME: '{"ask_user":"ask_person"}' },
          trust: true,
          timeout: 660_000,
        },
      },
    });
  });

  it('opencode: OPENCODE_CONFIG_CONTENT, merged over the user config by opencode, no file', () => {
    const { inv, wiring, merged } = wired(getSpec('opencode'));
    expect(merged?.argv).toEqual(inv.argv);
    expect(wiring?.files ?? []).toEqual([]);
    expect(JSON.parse(merged?.env?.OPENCODE_CONFIG_CONTENT ?? '{}')).toEqual({
      mcp: {
        agentwire: {
          type: 'local',
          command: [server.command, ...server.args],
          environment: server.env,
          enabled: true,
          timeout: 660_000,
        },
      },
    });
  });

  it('pi (no MCP): our extension loaded for this run by --extension, the token in its env only', () => {
    const { inv, wiring, merged } = wired(getSpec('pi'));
    // The file this install has built (relay-tools.ts agentwireEntry).
    expect(merged?.argv).toEqual([
      ...inv.argv,
      '--extension',
      '/opt/agentwire/dist/tool-extension-bundle.js',
    ]);
    expect(merged?.env).toMatchObject(server.env);
    // Nothing written: not pi's settings, not a file of ours.
    expect(wiring?.files).toBeUndefined();
  });

  it("pi with no extension named: tsc's module beside the entry point `agentwire mcp` runs from", () => {
    const { toolExtension: _, ...bare } = server;
    const wiring = getSpec('pi').tools?.(bare, (name) => join(RUN_DIR, name));
    expect(wiring?.args).toEqual(['--extension', '/opt/agentwire/dist/cli/tool-extension.js']);
  });

  it.each(SPECS.filter((s) => s.tools))('$kind: the token is never in argv', (spec) => {
    expect(wired(spec).merged?.argv.join(' ')).not.toContain('SECRET');
  });
});

describe('the runner and the tool wiring (a real child process)', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  // A "claude" that records its argv, its env's token, and the MCP config file it was given.
  const recorder = (out: string) => {
    const script = join(dir, 'record.mjs');
    writeFileSync(
      script,
      `import { readFileSync, writeFileSync, statSync } from 'node:fs';
const a = process.argv.slice(2);
const i = a.indexOf('--mcp-config');
const file = i >= 0 ? a[i + 1] : undefined;
writeFileSync(${JSON.stringify(out)}, JSON.stringify({ argv: a, token: process.env.AGENTWIRE_TOOLS_TOKEN ?? null,
  file, mode: file ? (statSync(file).mode & 0o777) : null, config: file ? readFileSync(file, 'utf8') : null }));
`,
    );
    return script;
  };
  const request = (script: string, tools?: ToolServer): AgentRequest => ({
    ...ctx,
    command: [process.execPath, script],
    cwd: dir,
    stateDir: dir,
    timeoutMs: 20_000,
    env: { PATH: process.env.PATH ?? '' },
    ...(tools && { tools }),
  });

  it('without tools the argv is exactly what build made; with them the file exists (0600) for the run only', async () => {
    dir = mkdtempSync(join(tmpdir(), 'aw-wiring-'));
    const out = join(dir, 'out.json');
    const script = recorder(out);
    await runCommandReply(getSpec('claude'), request(script));
    const cold = JSON.parse(readFileSync(out, 'utf8'));
    expect([process.execPath, script, ...cold.argv]).toEqual(getSpec('claude').build(request(script)).argv);
    expect(cold.token).toBeNull();

    await runCommandReply(getSpec('claude'), request(script, server));
    const warm = JSON.parse(readFileSync(out, 'utf8'));
    expect(warm.token).toBe(TOKEN);
    expect(warm.mode).toBe(0o600);
    expect(JSON.parse(warm.config).mcpServers.agentwire.env.AGENTWIRE_TOOLS_TOKEN).toBe(TOKEN);
    expect(warm.file.startsWith(join(dir, 'tool-runs'))).toBe(true);
    expect(existsSync(warm.file)).toBe(false);
  });
});
