// The pi extension (src/cli/tool-extension.ts), loaded from dist/ as pi loads it (a default-exported
// factory given pi's API), against a real control socket: every tool registered under its own name
// with the MCP server's JSON Schema, a call forwarded with the run's token from the environment and
// the relay's sentence returned, and every failure thrown (pi tells the model a tool failed only
// when execute throws): the relay's refusal, no token, the relay gone. The real pi loading it is
// test/clis/tools.test.ts and warm-tools.test.ts.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TOOL_EXTENSION } from '../../src/agents/tool-server.js';
import { NOT_IN_RUN, NOT_RUNNING } from '../../src/cli/tool-call.js';
import { MethodError, MethodRegistry } from '../../src/control/methods.js';
import { startControlServer } from '../../src/control/server.js';
import { createLogger } from '../../src/log.js';
import { TOOL_NAMES, TOOLS, TOOLS_LIST_METHOD, TOOLS_METHOD } from '../../src/tools/schemas.js';

const EXT = join(process.cwd(), 'dist/cli', TOOL_EXTENSION);
// The same, bundled by the build into one file (scripts/bundle-mcp.mjs): the file a built relay names.
const BUNDLE = join(process.cwd(), 'dist/tool-extension-bundle.js');

interface Registered {
  name: string;
  label: string;
  description: string;
  parameters: Record<string, unknown>;
  execute(id: string, params: unknown, signal?: AbortSignal): Promise<{ content: { text: string }[] }>;
}

/** Loads the built extension as pi does and returns what it registered. */
async function load(file: string, env: NodeJS.ProcessEnv): Promise<Map<string, Registered>> {
  const mod = await import(pathToFileURL(file).href);
  const tools = new Map<string, Registered>();
  await mod.default({ registerTool: (t: Registered) => tools.set(t.name, t) }, env);
  return tools;
}

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});
beforeAll(() => {
  expect(existsSync(EXT), 'build first: npm run build').toBe(true);
});

describe('the file a relay names to pi', () => {
  it('is the bundle for the built relay (dist/relay-tools.js), with `agentwire mcp` beside it', async () => {
    const built = pathToFileURL(join(process.cwd(), 'dist/relay-tools.js')).href;
    const { agentwireEntry } = (await import(built)) as typeof import('../../src/relay-tools.js');
    expect(agentwireEntry()).toEqual({
      command: process.execPath,
      args: [join(process.cwd(), 'dist/cli/bin.js')],
      toolExtension: BUNDLE,
    });
  });
});

describe.each([
  ["tsc's module", EXT],
  ['its bundle', BUNDLE],
])('the pi extension, %s', (_name, file) => {
  it("is built, tsc's module beside the entry point under the name the pi spec gives pi", () => {
    expect(existsSync(join(process.cwd(), 'dist/cli/bin.js'))).toBe(true);
    expect(existsSync(file)).toBe(true);
  });

  it("registers every tool under its own name with the MCP server's argument schema", async () => {
    const tools = await load(file, {});
    expect([...tools.keys()].sort()).toEqual([...TOOL_NAMES].sort());
    for (const name of TOOL_NAMES) {
      const t = tools.get(name) as Registered;
      expect(t.description).toBe(TOOLS[name].description);
      const { $schema: _, ...want } = z.toJSONSchema(z.object(TOOLS[name].input)) as Record<string, unknown>;
      expect(t.parameters).toEqual(want);
      expect(t.parameters).not.toHaveProperty('$schema');
    }
    expect(tools.get('send_message')?.parameters).toMatchObject({
      type: 'object',
      required: ['text'],
      properties: { text: { type: 'string', minLength: 1 } },
    });
    expect(tools.get('ask_user')?.parameters).toMatchObject({ required: ['question'] });
  });

  it("forwards a call with the run's token to the relay and returns its sentence; a refusal is thrown", async () => {
    dir = mkdtempSync(join(tmpdir(), 'aw-piext-'));
    const socket = join(dir, 's.sock');
    const seen: unknown[] = [];
    const control = new MethodRegistry();
    control.register(TOOLS_METHOD, async (params: unknown) => {
      seen.push(params);
      const p = params as { args: { text?: string } };
      if (p.args.text === 'no') throw new MethodError('send_message: refused for the test');
      return { text: 'Sent (9 more this run).' };
    });
    const server = await startControlServer(socket, control, createLogger({ level: 'silent' }));
    try {
      const tools = await load(file, { AGENTWIRE_TOOLS_TOKEN: 'tok.en', AGENTWIRE_TOOLS_SOCKET: socket });
      const send = tools.get('send_message') as Registered;
      const r = await send.execute('call-1', { text: 'halfway there' });
      expect(r.content).toEqual([{ type: 'text', text: 'Sent (9 more this run).' }]);
      // Stamped with the monotonic clock when pi handed the call over (the turn that made it).
      expect(seen).toEqual([
        {
          token: 'tok.en',
          tool: 'send_message',
          args: { text: 'halfway there' },
          issued: expect.stringMatching(/^\d+$/),
        },
      ]);
      await expect(send.execute('call-2', { text: 'no' })).rejects.toThrow(
        'send_message: refused for the test',
      );
    } finally {
      await server.close();
    }
  });

  it("registers the user's own tools the relay lists, after ours, never under a name of ours", async () => {
    dir = mkdtempSync(join(tmpdir(), 'aw-piext-'));
    const socket = join(dir, 's.sock');
    const control = new MethodRegistry();
    const schema = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] };
    const listedFor: unknown[] = [];
    control.register(TOOLS_LIST_METHOD, async (params: unknown) => {
      listedFor.push(params);
      return {
        tools: [
          { name: 'gh__search', description: 'Search.', inputSchema: { $schema: 'x', ...schema } },
          { name: 'send_message', description: 'A shadow.', inputSchema: schema },
        ],
      };
    });
    const calls: unknown[] = [];
    control.register(TOOLS_METHOD, async (params: unknown) => {
      calls.push((params as { tool: string }).tool);
      return { text: 'found 3' };
    });
    const server = await startControlServer(socket, control, createLogger({ level: 'silent' }));
    try {
      const tools = await load(file, { AGENTWIRE_TOOLS_TOKEN: 'tok.en', AGENTWIRE_TOOLS_SOCKET: socket });
      expect(listedFor).toEqual([{ token: 'tok.en' }]);
      expect(tools.get('gh__search')).toMatchObject({ description: 'Search.', parameters: schema });
      expect(tools.get('send_message')?.description).toBe(TOOLS.send_message.description);
      expect(tools.size).toBe(TOOL_NAMES.length + 1);
      const r = await (tools.get('gh__search') as Registered).execute('c', { q: 'x' });
      expect(r.content).toEqual([{ type: 'text', text: 'found 3' }]);
      expect(calls).toEqual(['gh__search']);
    } finally {
      await server.close();
    }
  });

  it('outside a run (no token) and with the relay gone, the call throws and says why', async () => {
    dir = mkdtempSync(join(tmpdir(), 'aw-piext-'));
    const outside = (await load(file, {})).get('chat_info') as Registered;
    await expect(outside.execute('c', {})).rejects.toThrow(NOT_IN_RUN);
    const gone = (
      await load(file, { AGENTWIRE_TOOLS_TOKEN: 'a.b', AGENTWIRE_TOOLS_SOCKET: join(dir, 'gone.sock') })
    ).get('send_message') as Registered;
    await expect(gone.execute('c', { text: 'hi' })).rejects.toThrow(NOT_RUNNING);
  });
});
