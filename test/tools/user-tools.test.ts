// The user's own tools (tools.servers, tools.scripts) end to end, with real child processes: a run's
// `agentwire mcp` (from dist/, spoken to by the SDK's client as a CLI would) lists them beside ours
// and calls them through the relay's tools socket and handler (createTools, a real store). A stdio
// server and an HTTP server on 127.0.0.1 (both built with the SDK's server side), and a script.
// Then the bad rows: a server that dies, hangs or floods, a script that does; the relay goes on.
// And secrecy: a server's environment reaches it, never the agent's environment, never the log.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AGENT_KINDS } from '../../src/agents/registry.js';
import { resolveAgent } from '../../src/agents/resolve.js';
import { parseConfigText } from '../../src/config/load.js';
import { MethodRegistry } from '../../src/control/methods.js';
import { type ControlServer, startControlServer } from '../../src/control/server.js';
import { createTools, registerToolsMethod } from '../../src/relay.js';
import { openDb } from '../../src/store/sqlite/db.js';
import { sqliteFile, storeOver } from '../../src/store/sqlite/open.js';
import { QUEUE_MIGRATIONS } from '../../src/store/sqlite/queue-schema.js';
import type { ToolHost } from '../../src/tools/host.js';
import { type Home, makeHome } from '../e2e/helpers.js';

const BIN = join(process.cwd(), 'dist/cli/bin.js');
const SERVER = join(process.cwd(), 'test/fixtures/fake-user-mcp.mjs');
const SCRIPT = join(process.cwd(), 'test/fixtures/fake-user-script.mjs');
const SECRET = 'srv-secret-7f3a9c2e41';
const HTTP_KEY = 'http-key-5b8d0e6a93';
const CHAT = 'twilio:+15550001111' as const;

let home: Home;
let tools: ToolHost;
let control: ControlServer;
let http: ChildProcess;
let httpDir: string;
let client: Client;
let agentEnv: Record<string, string>;
let lines: Record<string, unknown>[];
let closeDb: () => void;

/** Polls `read` until it gives a value, at most 10 s. */
async function until<T>(read: () => T | undefined): Promise<T> {
  const end = Date.now() + 10_000;
  for (;;) {
    const v = read();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

beforeAll(async () => {
  expect(existsSync(BIN), 'build first: npm run build').toBe(true);
  httpDir = mkdtempSync(join(tmpdir(), 'aw-user-http-'));
  const portFile = join(httpDir, 'port');
  http = spawn(process.execPath, [SERVER, '--http', portFile], {
    env: { ...process.env, FAKE_HTTP_KEY: HTTP_KEY },
    stdio: 'ignore',
  });
  const port = await until(() =>
    existsSync(portFile) ? readFileSync(portFile, 'utf8') || undefined : undefined,
  );
  home = makeHome({
    tools: {
      servers: {
        fake: {
          command: [process.execPath, SERVER],
          env: { FAKE_SECRET: SECRET },
          safe: ['add'],
          // Long enough that a loaded machine still sees the flood before the time limit.
          timeoutSeconds: 5,
        },
        web: { url: `http://127.0.0.1:${port}/mcp`, headers: { 'x-fake-key': HTTP_KEY }, timeoutSeconds: 4 },
      },
      scripts: {
        greet: {
          run: [process.execPath, SCRIPT, '--fixed'],
          description: 'Greets someone.',
          schema: {
            type: 'object',
            properties: {
              name: { type: 'string', minLength: 1 },
              mode: { enum: ['greet', 'hang', 'flood', 'fail'] },
            },
            required: ['name'],
            additionalProperties: false,
          },
          timeoutSeconds: 1,
        },
      },
    },
  });
  const ctx = home.ctx();
  lines = ctx.lines;
  const db = openDb(sqliteFile(ctx.paths.home), QUEUE_MIGRATIONS);
  closeDb = () => db.close();
  const socket = join(home.dir, 'tools.sock');
  tools = createTools(ctx, storeOver(db), new Map(), socket, { command: process.execPath, args: [BIN] });
  const registry = new MethodRegistry();
  registerToolsMethod(registry, tools);
  control = await startControlServer(socket, registry, ctx.log);
  const grant = tools.grantor?.({
    chat: CHAT,
    sessionKey: CHAT,
    runKey: 'in:1',
    cwd: home.dir,
    timeoutMs: 120_000,
    permissions: 'allow',
  });
  if (!grant) throw new Error('tools are on');
  // The agent's own environment as the relay builds it, with the tools server's merged in (withTools).
  const agent = resolveAgent(home.config, ctx.paths, 'claude', { env: process.env, createDirs: false });
  agentEnv = { ...agent.env, ...grant.server.env };
  expect(grant.server.userTools).toBe(true);
  const transport = new StdioClientTransport({
    command: grant.server.command,
    args: [...grant.server.args],
    env: agentEnv,
    stderr: 'ignore',
  });
  client = new Client({ name: 'cli', version: '0' });
  await client.connect(transport);
}, 30_000);

afterAll(async () => {
  await client?.close();
  await control?.close();
  await tools?.close();
  closeDb?.();
  if (http?.pid) http.kill();
  home?.cleanup();
  rmSync(httpDir, { recursive: true, force: true });
});

const call = async (name: string, args: Record<string, unknown> = {}) => {
  const r = await client.callTool({ name, arguments: args });
  return { isError: r.isError === true, text: (r.content as { text: string }[])[0]?.text ?? '' };
};

describe("the user's own tools through agentwire mcp and the relay", () => {
  it('are listed beside ours, namespaced, with their own schemas', async () => {
    const listed = (await client.listTools()).tools;
    const names = listed.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'send_message',
        'chat_info',
        'fake__echo',
        'fake__add',
        'web__add',
        'script__greet',
      ]),
    );
    expect(names.filter((n) => n.includes('__')).every((n) => /^(fake|web|script)__/.test(n))).toBe(true);
    expect(listed.find((t) => t.name === 'fake__add')?.inputSchema).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number', description: 'first' }, b: { type: 'number' } },
      required: ['a', 'b'],
    });
    expect(listed.find((t) => t.name === 'script__greet')).toMatchObject({
      description: 'Greets someone.',
      inputSchema: { properties: { name: { type: 'string', minLength: 1 } }, required: ['name'] },
    });
  });

  it('calls a stdio server, an HTTP server (with its headers) and a script', async () => {
    expect(await call('fake__add', { a: 2, b: 3 })).toEqual({ isError: false, text: '5' });
    expect(await call('web__add', { a: 20, b: 22 })).toEqual({ isError: false, text: '42' });
    expect(await call('fake__echo', { text: 'hi' })).toMatchObject({
      isError: false,
      text: expect.stringMatching(/^echo: hi/),
    });
    // Arguments on stdin as JSON: the argv is the configured one, nothing added.
    expect(await call('script__greet', { name: '--rm -rf' })).toEqual({
      isError: false,
      text: 'hello --rm -rf (argv ["--fixed"])',
    });
  });

  it("a script's arguments are checked against its schema, and its failures are sentences", async () => {
    const bad = await call('script__greet', { name: '' });
    expect(bad.isError).toBe(true);
    expect(bad.text).toMatch(
      /^script__greet: invalid arguments: .*name must NOT have fewer than 1 characters/,
    );
    expect((await call('script__greet', { name: 'x', extra: 1 })).text).toMatch(
      /must NOT have additional properties/,
    );
    expect(await call('script__greet', { name: 'x', mode: 'fail' })).toEqual({
      isError: true,
      text: 'script__greet: the script greet exited with code 2: no such name',
    });
    const started = Date.now();
    expect(await call('script__greet', { name: 'x', mode: 'hang' })).toEqual({
      isError: true,
      text: 'script__greet: the script greet took longer than 1 s and was stopped',
    });
    expect(Date.now() - started).toBeLessThan(8000);
    const flood = await call('script__greet', { name: 'x', mode: 'flood' });
    expect(flood.isError).toBe(false);
    expect(flood.text.length).toBeLessThan(300 * 1024);
    expect(flood.text).toMatch(/\[… cut: the script printed more than 262144 bytes\]$/);
  });

  it('a server that hangs: the call is given up on time, the server goes on serving', async () => {
    const started = Date.now();
    expect(await call('fake__hang')).toEqual({
      isError: true,
      text: 'fake__hang: the server fake did not answer within 5 s; the call was given up',
    });
    expect(Date.now() - started).toBeLessThan(12_000);
    expect((await call('fake__echo', { text: 'after hang' })).text).toMatch(/^echo: after hang/);
  });

  it('a server that dies mid-call: a sentence, then a fresh instance on the next call; its stderr is logged redacted', async () => {
    const before = (await call('fake__echo', { text: 'a' })).text;
    const pid = /pid (\d+)/.exec(before)?.[1];
    const died = await call('fake__die');
    expect(died.isError).toBe(true);
    expect(died.text).toMatch(
      /^fake__die: the server fake stopped during the call .*started again on the next call$/,
    );
    const after = (await call('fake__echo', { text: 'b' })).text;
    expect(after).toMatch(/^echo: b \(call 1 of pid \d+\)$/);
    expect(/pid (\d+)/.exec(after)?.[1]).not.toBe(pid);
    await until(() => lines.find((l) => l.msg === 'user MCP server closed' && l.level === 40));
    const stderr = await until(() => lines.find((l) => l.msg === 'user MCP server stderr'));
    expect(stderr).toMatchObject({ level: 20, stderr: 'dying with [redacted]' });
  });

  it('a server that floods: a sentence, the relay unaffected, the server started again', async () => {
    const flood = await call('fake__flood');
    expect(flood.isError).toBe(true);
    expect(flood.text).toMatch(/^fake__flood: the server fake stopped during the call/);
    expect((await call('fake__echo', { text: 'after flood' })).text).toMatch(
      /^echo: after flood \(call 1 of/,
    );
    expect((await call('chat_info')).isError).toBe(false);
  });

  it('an HTTP server that hangs or floods: a sentence each, on time, and it goes on serving', async () => {
    const started = Date.now();
    expect(await call('web__hang')).toEqual({
      isError: true,
      text: 'web__hang: the server web did not answer within 4 s; the call was given up',
    });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await call('web__flood')).toEqual({
      isError: true,
      text: 'web__flood: the server web sent more than 4 MiB in one answer; the call was given up',
    });
    expect(await call('web__add', { a: 1, b: 1 })).toEqual({ isError: false, text: '2' });
  });

  it("a server's environment reaches the server, never the agent's environment nor the log", async () => {
    expect(await call('fake__env', { name: 'FAKE_SECRET' })).toEqual({ isError: false, text: SECRET });
    expect(Object.values(agentEnv).some((v) => v.includes(SECRET))).toBe(false);
    expect(Object.values(agentEnv).some((v) => v.includes(HTTP_KEY))).toBe(false);
    // The agent's `agentwire mcp` sees none of it either: it lists the server's tools, not its env.
    expect(JSON.stringify(await client.listTools())).not.toContain(SECRET);
    await vi.waitFor(() => expect(lines.length).toBeGreaterThan(0));
    const logged = JSON.stringify(lines);
    expect(logged).not.toContain(SECRET);
    expect(logged).not.toContain(HTTP_KEY);
  });

  it('a name that is not a configured tool is refused; ours are never shadowed', async () => {
    const r = await call('fake__nope');
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/fake__nope/);
    expect((await call('script__other')).text).toMatch(/not found|unknown tool/);
  });
});

describe('tools.servers and tools.scripts in the config file', () => {
  const problems = (tools: string) => {
    const r = parseConfigText(`{\n  tools: ${tools}\n}`, 'c.json5', {}, AGENT_KINDS);
    return r.ok ? [] : r.problems.map((p) => `${p.file}:${p.line ?? '?'} ${p.path}: ${p.message}`);
  };
  it.each<[string, string, RegExp]>([
    [
      'both command and url',
      "{servers: {a: {command: ['x'], url: 'http://127.0.0.1:1/'}}}",
      /^c\.json5:2 tools\.servers\.a\.url: a server has either command \(stdio\) or url \(HTTP\), not both$/,
    ],
    ['neither', '{servers: {a: {}}}', /^c\.json5:2 tools\.servers\.a\.command: a server needs command/],
    [
      'an unknown key',
      "{servers: {a: {command: ['x'], shell: true}}}",
      /^c\.json5:2 tools\.servers\.a\.shell: unknown key$/,
    ],
    [
      'headers on stdio',
      "{servers: {a: {command: ['x'], headers: {A: 'b'}}}}",
      /tools\.servers\.a\.headers: headers are for an HTTP server/,
    ],
    [
      'a schema not of an object',
      "{scripts: {s: {run: ['x'], description: 'd', schema: {type: 'string'}}}}",
      /tools\.scripts\.s\.schema: must be a JSON schema of an object/,
    ],
    [
      'an invalid schema',
      "{scripts: {s: {run: ['x'], description: 'd', schema: {type: 'object', properties: {a: {type: 'nope'}}}}}}",
      /tools\.scripts\.s\.schema: not a valid JSON schema/,
    ],
    ['a name with __', "{servers: {a__b: {command: ['x']}}}", /tools\.servers\.a__b: a name is lower-case/],
    [
      'the scripts prefix as a server',
      "{servers: {script: {command: ['x']}}}",
      /tools\.servers: "script" is kept for scripts/,
    ],
  ])('%s: names the file, line and key', (_what, tools, expected) => {
    const p = problems(tools);
    expect(
      p.some((l) => expected.test(l)),
      JSON.stringify(p),
    ).toBe(true);
  });

  it('the line is the one the key is on', () => {
    const text =
      "{\n  tools: {\n    servers: {\n      gh: {\n        command: ['gh-mcp'],\n        url: 'http://127.0.0.1:9/',\n      },\n    },\n  },\n}";
    const r = parseConfigText(text, '/home/me/agentwire.json5', {}, AGENT_KINDS);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems[0]).toMatchObject({
      file: '/home/me/agentwire.json5',
      line: 6,
      path: 'tools.servers.gh.url',
    });
  });

  it('a valid config parses with its defaults', () => {
    const r = parseConfigText(
      "{tools: {servers: {gh: {command: ['gh-mcp'], env: {T: 'x'}}}, scripts: {s: {run: ['x'], description: 'd'}}}}",
      'c.json5',
      {},
      AGENT_KINDS,
    );
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.config.tools.servers.gh).toMatchObject({ safe: [], timeoutSeconds: 60 });
    expect(r.config.tools.scripts.s).toMatchObject({
      safe: false,
      timeoutSeconds: 60,
      schema: { type: 'object' },
    });
  });
});
