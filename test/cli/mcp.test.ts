// `agentwire mcp` from dist/, spoken to by the SDK's own client over stdio: it lists the tools with
// their input schemas, refuses bad arguments with an error the agent reads, and says clearly when
// it was started outside a run or when the process that started the run is gone.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { callTimeoutMs, listedNames, NOT_IN_RUN, NOT_RUNNING } from '../../src/cli/mcp.js';
import { MethodRegistry } from '../../src/control/methods.js';
import { startControlServer } from '../../src/control/server.js';
import { createLogger } from '../../src/log.js';
import { TOOLS_METHOD } from '../../src/tools/schemas.js';

const BIN = join(process.cwd(), 'dist/cli/bin.js');
let client: Client | undefined;
let dir: string | undefined;
afterEach(async () => {
  await client?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  client = undefined;
  dir = undefined;
});
beforeAll(() => {
  expect(existsSync(BIN), 'build first: npm run build').toBe(true);
});

async function connect(env: Record<string, string>): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp'],
    env: { PATH: process.env.PATH ?? '', ...env },
    stderr: 'ignore',
  });
  client = new Client({ name: 'test', version: '0' });
  await client.connect(transport);
  return client;
}

const text = (r: unknown) => (r as { content: { text: string }[] }).content[0]?.text;

describe('agentwire mcp', () => {
  it('lists every tool with its schema and refuses bad arguments', async () => {
    const c = await connect({});
    const tools = (await c.listTools()).tools;
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        'add_reaction',
        'ask_user',
        'cancel_task',
        'edit_message',
        'chat_info',
        'list_tasks',
        'pause_task',
        'resume_task',
        'schedule_task',
        'send_card',
        'send_file',
        'send_message',
        'send_to_agent',
        'update_task',
      ].sort(),
    );
    expect(tools.find((t) => t.name === 'ask_user')?.inputSchema).toMatchObject({ required: ['question'] });
    expect(tools.find((t) => t.name === 'send_message')?.inputSchema).toMatchObject({
      required: ['text'],
    });
    const bad = await c.callTool({ name: 'send_message', arguments: { text: 42 } });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(/send_message.*text/);
    // docs/tools.md quotes the error for a call without its text: it must be the real one.
    const missing = await c.callTool({ name: 'send_message', arguments: {} });
    expect(missing.isError).toBe(true);
    const quoted = /without its text: `([^`]+)`/.exec(readFileSync('docs/tools.md', 'utf8'))?.[1];
    expect(quoted?.replace(/\s+/g, ' ')).toBe(text(missing)?.replace(/\s+/g, ' '));
  });

  it('lists a tool under the name AGENTWIRE_TOOLS_RENAME gives (gemini), and calls the relay by its own', async () => {
    dir = mkdtempSync(join(tmpdir(), 'aw-mcp-'));
    const socket = join(dir, 'relay.sock');
    const control = new MethodRegistry();
    const called: unknown[] = [];
    control.register(TOOLS_METHOD, async (params) => {
      called.push((params as { tool: string }).tool);
      return { text: 'blue' };
    });
    const server = await startControlServer(socket, control, createLogger({ level: 'silent' }));
    try {
      const c = await connect({
        AGENTWIRE_TOOLS_TOKEN: 'a.b',
        AGENTWIRE_TOOLS_SOCKET: socket,
        AGENTWIRE_TOOLS_RENAME: '{"ask_user":"ask_person"}',
      });
      const names = (await c.listTools()).tools.map((t) => t.name);
      expect(names).toContain('ask_person');
      expect(names).not.toContain('ask_user');
      const r = await c.callTool({ name: 'ask_person', arguments: { question: 'Which?' } });
      expect(text(r)).toBe('blue');
      expect(called).toEqual(['ask_user']);
    } finally {
      await server.close();
    }
  });

  it.each<[string, string | undefined, string]>([
    ['a rename', '{"ask_user":"ask_person"}', 'ask_person'],
    ['no value', undefined, 'ask_user'],
    ['not JSON', 'ask_user=x', 'ask_user'],
    ['a name another tool has', '{"ask_user":"send_message"}', 'ask_user'],
    ['a name with other characters', '{"ask_user":"Ask User!"}', 'ask_user'],
    ['a number', '{"ask_user":5}', 'ask_user'],
  ])('listed names from %s', (_what, value, askName) => {
    const names = listedNames(value === undefined ? {} : { AGENTWIRE_TOOLS_RENAME: value });
    expect(names.ask_user).toBe(askName);
    expect(names.send_message).toBe('send_message');
  });

  it('outside a run (no token) it says so', async () => {
    const c = await connect({});
    const r = await c.callTool({ name: 'chat_info', arguments: {} });
    expect({ isError: r.isError, text: text(r) }).toEqual({ isError: true, text: NOT_IN_RUN });
  });

  it('when the process that started the run is gone it says so, and does not hang', async () => {
    dir = mkdtempSync(join(tmpdir(), 'aw-mcp-'));
    const c = await connect({ AGENTWIRE_TOOLS_TOKEN: 'a.b', AGENTWIRE_TOOLS_SOCKET: join(dir, 'gone.sock') });
    const r = await c.callTool({ name: 'send_message', arguments: { text: 'hi' } });
    expect({ isError: r.isError, text: text(r) }).toEqual({ isError: true, text: NOT_RUNNING });
  });

  it('waits for the relay as long as the run may (AGENTWIRE_TOOLS_TIMEOUT_MS), then says it did not answer', async () => {
    // ask_user keeps a call open while the person answers: the wait is the run's, not a fixed minute.
    dir = mkdtempSync(join(tmpdir(), 'aw-mcp-'));
    const socket = join(dir, 'relay.sock');
    const control = new MethodRegistry();
    control.register(TOOLS_METHOD, async () => {
      await new Promise((r) => setTimeout(r, 1500));
      return { text: 'answered late' };
    });
    const server = await startControlServer(socket, control, createLogger({ level: 'silent' }));
    try {
      const env = { AGENTWIRE_TOOLS_TOKEN: 'a.b', AGENTWIRE_TOOLS_SOCKET: socket };
      const patient = await connect({ ...env, AGENTWIRE_TOOLS_TIMEOUT_MS: '20000' });
      const ok = await patient.callTool({ name: 'chat_info', arguments: {} });
      expect({ isError: ok.isError, text: text(ok) }).toEqual({ isError: undefined, text: 'answered late' });
      await patient.close();
      const hasty = await connect({ ...env, AGENTWIRE_TOOLS_TIMEOUT_MS: '300' });
      const late = await hasty.callTool({ name: 'chat_info', arguments: {} });
      expect({ isError: late.isError, text: text(late) }).toEqual({
        isError: true,
        text: 'the relay did not answer in time',
      });
    } finally {
      await server.close();
    }
  });

  it.each([
    ['660000', 660_000],
    [undefined, 660_000],
    ['nonsense', 660_000],
    ['-5', 660_000],
    ['1500', 1500],
  ])('call timeout from %s: %d ms', (value, ms) => {
    expect(callTimeoutMs(value === undefined ? {} : { AGENTWIRE_TOOLS_TIMEOUT_MS: value })).toBe(ms);
  });
});
