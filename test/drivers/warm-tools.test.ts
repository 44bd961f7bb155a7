// agentwire's tools in a warm process, per CLI, through the pool and the driver factory
// against each kind's fake CLI (real child processes; test/fixtures/record-start.mjs records what
// each was started with). A process is started once with a token of its own, in the same wiring as
// the CLI's cold runs (or ACP's session/new mcpServers), never in argv; two turns keep the process
// (a new run's token does not change it); between turns the token is refused; when the process
// closes the token is refused as closed and its files are gone.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { AgentKind, AgentRequest, SessionRef } from '../../src/agents/types.js';
import { createWarmPool, type WarmPool } from '../../src/drivers/pool.js';
import { createLogger } from '../../src/log.js';
import { toolGrantor } from '../../src/tools/grants.js';
import { TOKEN_BETWEEN_TURNS, TOKEN_PROCESS_CLOSED, ToolTokens } from '../../src/tools/tokens.js';

const FIX = join(import.meta.dirname, '..', 'fixtures');
const dir = mkdtempSync(join(tmpdir(), 'aw-warm-tools-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const pools: WarmPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.shutdown(5000)));
});

const LANE = 'twilio:+15550000001' as const;
const FAKES: Record<string, string> = {
  claude: 'fake-claude-stream.mjs',
  codex: 'fake-codex-app-server.mjs',
  gemini: 'fake-acp-agent.mjs',
  opencode: 'fake-acp-agent.mjs',
  acp: 'fake-acp-agent.mjs',
  pi: 'fake-pi-rpc.mjs',
};

interface Start {
  pid: number;
  argv: string[];
  env: Record<string, string>;
  files: Record<string, { mode: number; content: string } | null>;
}

function setup(kind: AgentKind) {
  const tokens = new ToolTokens();
  const grantor = toolGrantor({
    tokens,
    socket: '/s/relay.sock',
    command: '/usr/bin/node',
    args: ['/x/bin.js'],
  });
  const record = join(dir, `${kind}-${Math.random().toString(36).slice(2)}`);
  const p = createWarmPool({
    maxProcesses: 2,
    sessionsPerProcess: 4,
    idleMs: 60_000,
    log: createLogger({ level: 'silent' }),
    cold: () => undefined,
  });
  pools.push(p);
  const runs: string[] = [];
  const req = (
    runKey: string,
    session: SessionRef,
    sessionKey: `${string}:${string}` = LANE,
  ): AgentRequest => {
    const g = grantor({ chat: sessionKey, sessionKey, runKey, cwd: dir, timeoutMs: 30_000 });
    if (!g) throw new Error('no grant');
    runs.push(g.server.env.AGENTWIRE_TOOLS_TOKEN as string);
    return {
      prompt: `hello ${runKey}`,
      session,
      command: [process.execPath, join(FIX, 'record-start.mjs'), join(FIX, FAKES[kind] as string)],
      cwd: dir,
      stateDir: join(dir, 'state', kind),
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        FAKE_CODEX_STATE: dir,
        RECORD_START: record,
        FAKE_ACP_LOG: `${record}.acp`,
        FAKE_CODEX_LOG: `${record}.codex`,
      },
      timeoutMs: 10_000,
      tools: g.server,
      warmTools: g.warm,
    };
  };
  const starts = (): Start[] =>
    existsSync(record)
      ? readFileSync(record, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l))
      : [];
  const acpLog = () => (existsSync(`${record}.acp`) ? readFileSync(`${record}.acp`, 'utf8') : '');
  const codexLog = (): { method?: string; params?: Record<string, unknown> }[] =>
    existsSync(`${record}.codex`)
      ? readFileSync(`${record}.codex`, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l))
      : [];
  return { tokens, p, req, starts, acpLog, codexLog, runs };
}

/** Two turns in one process; returns what the process was started with and its own token. */
async function twoTurns(kind: AgentKind) {
  const s = setup(kind);
  const a = await s.p.run(LANE, kind, s.req('in:1', { type: 'new' }));
  expect(a.type, JSON.stringify(a)).toBe('ok');
  const b = await s.p.run(LANE, kind, s.req('in:2', { type: 'resume', id: a.sessionId as string }));
  expect(b.type, JSON.stringify(b)).toBe('ok');
  // One process for both turns: a new run's token did not change the process.
  const starts = s.starts();
  expect(starts).toHaveLength(1);
  const start = starts[0] as Start;
  return { ...s, start };
}

describe.each(['claude', 'gemini', 'opencode'] as const)('warm %s with the tools', (kind) => {
  it('is started once with a process token of its own in the cold wiring, refused between turns and after close', async () => {
    const { start, tokens, p, runs } = await twoTurns(kind);
    const token = start.env.AGENTWIRE_TOOLS_TOKEN as string;
    expect(token).toMatch(/^[\w-]+\.[\w-]+$/);
    // Not a run's token: those are revoked with their runs; the process's lives with the process.
    expect(runs).not.toContain(token);
    expect(start.argv.join(' ')).not.toContain(token);
    expect(start.env.AGENTWIRE_TOOLS_SOCKET).toBe('/s/relay.sock');
    expect(start.env.AGENTWIRE_TOOLS_TIMEOUT_MS).toBe('90000');
    expect(tokens.check(token)).toEqual({ ok: false, error: TOKEN_BETWEEN_TURNS });

    const files = Object.keys(start.files);
    if (kind === 'claude') {
      const at = start.argv.indexOf('--mcp-config');
      expect(start.argv.slice(at + 2, at + 5)).toEqual([
        '--strict-mcp-config',
        '--allowedTools',
        expect.stringContaining('mcp__agentwire__send_message'),
      ]);
      expect(start.argv).toContain('--input-format');
      expect(start.env.ENABLE_TOOL_SEARCH).toBe('false');
    }
    if (kind === 'gemini') expect(start.argv).toEqual(['--acp', '--skip-trust']);
    if (kind === 'opencode') {
      expect(start.argv).toEqual(['acp']);
      const cfg = JSON.parse(start.env.OPENCODE_CONFIG_CONTENT as string);
      expect(cfg.mcp.agentwire).toMatchObject({
        timeout: 90_000,
        environment: { AGENTWIRE_TOOLS_TOKEN: token },
      });
    }
    if (kind === 'claude' || kind === 'gemini') {
      // A per-process file in the state folder, 0600, holding the process token, gone at close.
      expect(files).toHaveLength(1);
      const file = files[0] as string;
      expect(file.startsWith(join(dir, 'state', kind, 'tool-runs', 'warm-'))).toBe(true);
      const f = start.files[file];
      expect(f?.mode).toBe(0o600);
      const servers = JSON.parse(f?.content ?? '{}').mcpServers;
      expect(servers.agentwire.env.AGENTWIRE_TOOLS_TOKEN).toBe(token);
      expect(servers.agentwire.timeout).toBe(90_000);
      if (kind === 'gemini') expect(servers.agentwire.trust).toBe(true);
      expect(existsSync(file)).toBe(true);
      await p.shutdown(5000);
      expect(existsSync(file)).toBe(false);
    } else {
      expect(files).toEqual([]);
      await p.shutdown(5000);
    }
    expect(tokens.check(token)).toEqual({ ok: false, error: TOKEN_PROCESS_CLOSED });
  });
});

describe('warm codex with the tools', () => {
  it("gets the server per thread (thread/start config), each chat's token its own; the shared process has none", async () => {
    const s = setup('codex');
    const other = 'twilio:+15550000002';
    const a = await s.p.run(LANE, 'codex', s.req('in:1', { type: 'new' }));
    const b = await s.p.run(other, 'codex', s.req('in:2', { type: 'new' }, other));
    expect(a.type, JSON.stringify(a)).toBe('ok');
    expect(b.type, JSON.stringify(b)).toBe('ok');
    // One process for both chats, started with neither chat's token.
    const starts = s.starts();
    expect(starts).toHaveLength(1);
    const start = starts[0] as Start;
    expect(start.argv).toEqual(['app-server']);
    expect(start.env.AGENTWIRE_TOOLS_TOKEN).toBeUndefined();
    const threads = s.codexLog().filter((m) => m.method === 'thread/start');
    expect(threads).toHaveLength(2);
    const cfg = (i: number) => threads[i]?.params?.config as Record<string, unknown>;
    expect(cfg(0)).toMatchObject({
      'mcp_servers.agentwire.command': '/usr/bin/node',
      'mcp_servers.agentwire.args': ['/x/bin.js', 'mcp'],
      'mcp_servers.agentwire.default_tools_approval_mode': 'approve',
      'mcp_servers.agentwire.tool_timeout_sec': 90,
      // The thread waits for our server before its first turn (codex 0.169: required servers).
      'mcp_servers.agentwire.required': true,
    });
    const env = (i: number) => cfg(i)['mcp_servers.agentwire.env'] as Record<string, string>;
    expect(env(0).AGENTWIRE_TOOLS_SOCKET).toBe('/s/relay.sock');
    const [ta, tb] = [env(0).AGENTWIRE_TOOLS_TOKEN as string, env(1).AGENTWIRE_TOOLS_TOKEN as string];
    expect(ta).toMatch(/^[\w-]+\.[\w-]+$/);
    expect(tb).not.toBe(ta);
    // Each is its session's own, not a run's; refused between turns, then as closed.
    expect(s.runs).not.toContain(ta);
    expect(s.tokens.check(ta)).toEqual({ ok: false, error: TOKEN_BETWEEN_TURNS });
    await s.p.close(LANE);
    expect(s.tokens.check(ta)).toEqual({ ok: false, error: TOKEN_PROCESS_CLOSED });
    expect(s.tokens.check(tb)).toEqual({ ok: false, error: TOKEN_BETWEEN_TURNS });
    await s.p.shutdown(5000);
    expect(s.tokens.check(tb)).toEqual({ ok: false, error: TOKEN_PROCESS_CLOSED });
  });
});

describe('warm ACP agent (any) with the tools', () => {
  it('gets the server in session/new and session/load (mcpServers), the token only there', async () => {
    const s = setup('acp');
    const a = await s.p.run(LANE, 'acp', s.req('in:1', { type: 'new' }));
    expect(a.type, JSON.stringify(a)).toBe('ok');
    await s.p.close(LANE);
    // A new process on the same session: session/load names the server too, with a new token.
    const b = await s.p.run(LANE, 'acp', s.req('in:2', { type: 'resume', id: a.sessionId as string }));
    expect(b.type, JSON.stringify(b)).toBe('ok');
    const mcp = s
      .acpLog()
      .split('\n')
      .filter((l) => l.startsWith('mcp '))
      .map((l) => JSON.parse(l.slice(4)));
    expect(s.acpLog()).toMatch(/session\/new\nmcp [^\n]+\n[\s\S]*session\/load [^\n]+\nmcp /);
    expect(mcp).toHaveLength(2);
    const tokenOf = (m: { env: { name: string; value: string }[] }[]) =>
      m[0]?.env.find((e) => e.name === 'AGENTWIRE_TOOLS_TOKEN')?.value;
    expect(mcp[0][0]).toMatchObject({
      name: 'agentwire',
      command: '/usr/bin/node',
      args: ['/x/bin.js', 'mcp'],
    });
    expect(tokenOf(mcp[0])).not.toBe(tokenOf(mcp[1]));
    // The first process closed: its token is refused as such; nothing of it in the agent's own env.
    expect(s.tokens.check(tokenOf(mcp[0]))).toEqual({ ok: false, error: TOKEN_PROCESS_CLOSED });
    for (const st of s.starts()) expect(st.env.AGENTWIRE_TOOLS_TOKEN).toBeUndefined();
  });
});

describe('warm pi with the tools on', () => {
  it('is started once with our extension (--extension) and a process token of its own in its env, never argv', async () => {
    const { start, tokens, p, runs } = await twoTurns('pi');
    expect(start.argv.slice(0, 4)).toEqual(['--extension', '/x/tool-extension.js', '--mode', 'rpc']);
    const token = start.env.AGENTWIRE_TOOLS_TOKEN as string;
    expect(token).toMatch(/^[\w-]+\.[\w-]+$/);
    expect(runs).not.toContain(token);
    expect(start.argv.join(' ')).not.toContain(token);
    expect(start.env.AGENTWIRE_TOOLS_SOCKET).toBe('/s/relay.sock');
    expect(start.env.AGENTWIRE_TOOLS_TIMEOUT_MS).toBe('90000');
    expect(tokens.check(token)).toEqual({ ok: false, error: TOKEN_BETWEEN_TURNS });
    // Nothing written for pi: the extension is agentwire's own built file.
    expect(Object.keys(start.files)).toEqual([]);
    await p.shutdown(5000);
    expect(tokens.check(token)).toEqual({ ok: false, error: TOKEN_PROCESS_CLOSED });
  });
});
