// A cold run's tool files (the MCP config with the run's token) are written and removed without a
// synchronous file-system call: on a busy disk each blocked the relay 1–4 ms per message, and every
// webhook and every other chat's run waited (docs/performance.md). The file still exists, 0600,
// for the run only, and its folder goes with it.
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  return {
    ...real,
    mkdirSync: vi.fn(real.mkdirSync),
    writeFileSync: vi.fn(real.writeFileSync),
    rmSync: vi.fn(real.rmSync),
  };
});

const { getSpec } = await import('../../src/agents/registry.js');
const { runCommandReply } = await import('../../src/runner/run-command-reply.js');

let dir: string;
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the tool files of a cold run', () => {
  it('are written and removed off the event loop', async () => {
    dir = fs.mkdtempSync(join(tmpdir(), 'aw-toolfiles-'));
    const out = join(dir, 'out.json');
    const script = join(dir, 'record.mjs');
    fs.writeFileSync(
      script,
      `import { readFileSync, writeFileSync, statSync } from 'node:fs';
const a = process.argv.slice(2);
const file = a[a.indexOf('--mcp-config') + 1];
writeFileSync(${JSON.stringify(out)}, JSON.stringify({ file, mode: statSync(file).mode & 0o777,
  config: readFileSync(file, 'utf8') }));
`,
    );
    vi.mocked(fs.mkdirSync).mockClear();
    vi.mocked(fs.writeFileSync).mockClear();
    vi.mocked(fs.rmSync).mockClear();
    await runCommandReply(getSpec('claude'), {
      prompt: 'hi',
      session: { type: 'new' },
      command: [process.execPath, script],
      cwd: dir,
      stateDir: dir,
      timeoutMs: 20_000,
      env: { PATH: process.env.PATH ?? '' },
      tools: {
        command: process.execPath,
        args: ['/x/bin.js', 'mcp'],
        env: { AGENTWIRE_TOOLS_TOKEN: 'id.secret-secret-secret', AGENTWIRE_TOOLS_SOCKET: '/s/relay.sock' },
        tools: ['send_message'],
        callTimeoutMs: 60_000,
      },
    });
    const seen = JSON.parse(fs.readFileSync(out, 'utf8'));
    expect(seen.mode).toBe(0o600);
    expect(JSON.parse(seen.config).mcpServers.agentwire.env.AGENTWIRE_TOOLS_TOKEN).toBe(
      'id.secret-secret-secret',
    );
    expect(fs.existsSync(seen.file)).toBe(false);
    // Straight in the tool folder, named for the run: no folder made and removed per message.
    expect(seen.file).toMatch(new RegExp(`^${join(dir, 'tool-runs')}/[0-9a-f-]{36}\\.claude-mcp\\.json$`));
    expect(fs.readdirSync(join(dir, 'tool-runs'))).toEqual([]);
    expect(fs.mkdirSync).not.toHaveBeenCalled();
    expect(fs.writeFileSync).not.toHaveBeenCalled();
    expect(fs.rmSync).not.toHaveBeenCalled();
  });
});
